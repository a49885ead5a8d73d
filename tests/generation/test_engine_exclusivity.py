"""Generation mechanisms for oneOf exclusivity, array conditions and XSD wildcards/namespaces:
closed object options narrowed by a required property, the same schema twice in a oneOf,
`contains` and if/then on arrays, optional elements whose content is a required xs:any, and union-typed
qualified elements. Records are judged by jsonschema (draft format checker) or the xmlschema guard."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from app.generation.errors import GenerationError
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from tests.generation.validated import DRAFT, validated_records


def _records(schema: dict[str, Any], n: int = 200, seed: int = 5) -> list[Any]:
    return validated_records(schema, n, seed)


def test_oneof_of_closed_objects_without_required_keys() -> None:
    # `{}` matches every option: each drawn item must carry its own option's key
    item = {"oneOf": [
        {"type": "object", "additionalProperties": False, "properties": {"step": {"type": "string"}}},
        {"type": "object", "additionalProperties": False, "properties": {"parallel": {"type": "integer"}}},
        {"type": "object", "additionalProperties": False,
         "properties": {"stage": {"type": "boolean"}, "name": {"type": "string"}}},
    ]}
    schema = {"type": "object", "required": ["items"],
              "properties": {"items": {"type": "array", "minItems": 1, "items": item}}}
    records = _records(schema)
    keys = {k for r in records for it in r["items"] for k in it}
    assert {"step", "parallel", "stage"} <= keys


def test_oneof_with_the_same_schema_twice_draws_only_the_other_options() -> None:
    schema = {"$defs": {"unit": {"type": "object", "required": ["valid", "where"],
                                 "properties": {"valid": {"type": "boolean"}, "where": {"type": "string"}}},
                        "basic": {"$ref": "#/$defs/unit"}},
              "oneOf": [{"type": "object", "required": ["valid"], "properties": {"valid": {"type": "boolean"}}},
                        {"$ref": "#/$defs/basic"}, {"$ref": "#/$defs/unit"}]}
    records = _records(schema)
    assert all("where" not in r for r in records)


def test_oneof_whose_options_are_all_the_same_schema_fails_naming_it() -> None:
    schema = {"$defs": {"u": {"type": "object", "properties": {"a": {"type": "string"}}}},
              "type": "object", "required": ["v"],
              "properties": {"v": {"oneOf": [{"$ref": "#/$defs/u"}, {"$ref": "#/$defs/u"}]}}}
    with pytest.raises(GenerationError, match=r"^v: 2 oneOf options are the same schema"):
        _records(schema, n=5)


def test_if_contains_then_max_items_on_an_array() -> None:
    item = {"type": "object", "required": ["method"], "properties": {"method": {"enum": ["uv", "pip", "setup"]}}}
    schema = {"type": "object", "required": ["install"], "properties": {"install": {
        "type": "array", "minItems": 1, "maxItems": 4, "items": item,
        "if": {"contains": {"properties": {"method": {"const": "uv"}}, "required": ["method"]}},
        "then": {"maxItems": 1}}}}
    records = _records(schema)
    assert any(len(r["install"]) > 1 for r in records)
    assert any(it["method"] == "uv" for r in records for it in r["install"])


def test_contains_with_min_contains_is_met() -> None:
    schema = {"type": "object", "required": ["tags"], "properties": {"tags": {
        "type": "array", "maxItems": 4, "items": {"enum": ["a", "b", "c"]},
        "contains": {"const": "a"}, "minContains": 2}}}
    records = _records(schema)
    assert all(r["tags"].count("a") >= 2 for r in records)


_XS = 'xmlns:xs="http://www.w3.org/2001/XMLSchema"'


def _xml_plan(xsd: str, n: int = 100) -> None:
    loaded = load_schema(xsd.encode(), "s.xsd")
    plan = compile_plan(loaded, [], {"seed": 2}, record_count=n)
    for fmt in ("xml", "json"):
        plan.write(fmt, io.BytesIO(), guard=True)  # the guard checks every record with xmlschema


def test_optional_element_with_required_wildcard_content_is_left_out() -> None:
    _xml_plan(f"""<xs:schema {_XS} targetNamespace="urn:t" xmlns="urn:t" elementFormDefault="qualified">
      <xs:element name="Extension"><xs:complexType><xs:sequence>
        <xs:any namespace="##other" processContents="lax" maxOccurs="unbounded"/>
      </xs:sequence></xs:complexType></xs:element>
      <xs:element name="r"><xs:complexType><xs:sequence>
        <xs:element name="a" type="xs:string"/>
        <xs:element ref="Extension" minOccurs="0" maxOccurs="unbounded"/>
      </xs:sequence></xs:complexType></xs:element>
    </xs:schema>""")


def test_required_element_with_required_wildcard_content_fails_naming_it() -> None:
    # strict, and no global element of another namespace to put there: nothing can meet it (a plain
    # <xs:any/> takes the schema's own global elements, here only the root: a recursion)
    with pytest.raises(GenerationError, match=r"^ext: required xs:any wildcard content cannot be generated"):
        _xml_plan(f"""<xs:schema {_XS}>
          <xs:element name="r"><xs:complexType><xs:sequence>
            <xs:element name="ext"><xs:complexType><xs:sequence><xs:any namespace="##other"/></xs:sequence></xs:complexType>
            </xs:element>
          </xs:sequence></xs:complexType></xs:element>
        </xs:schema>""", n=5)


def test_qualified_union_typed_local_element_keeps_its_namespace() -> None:
    _xml_plan(f"""<xs:schema {_XS} targetNamespace="urn:b" xmlns:b="urn:b" elementFormDefault="qualified">
      <xs:simpleType name="link"><xs:restriction base="xs:string"><xs:pattern value="urn:x:[a-z]+"/>
      </xs:restriction></xs:simpleType>
      <xs:element name="ref"><xs:complexType><xs:sequence>
        <xs:element name="url"><xs:simpleType><xs:union memberTypes="xs:int b:link"/></xs:simpleType>
        </xs:element>
      </xs:sequence></xs:complexType></xs:element>
    </xs:schema>""")


def test_closed_rivals_make_one_optional_key_required() -> None:
    from app.generation.engine.variants import distinguished
    from app.generation.model import Kind

    schema = {"$schema": DRAFT, "oneOf": [
        {"type": "object", "additionalProperties": False, "properties": {"a": {"type": "string"}}},
        {"type": "object", "additionalProperties": False,
         "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
        {"type": "object", "properties": {"c": {"type": "string"}}}]}
    root = load_schema(json.dumps(schema).encode(), "s.json").field_tree().root
    assert root.kind is Kind.CHOICE
    narrowed = distinguished(root.options)
    # the first option has no key outside its closed rival: it is left as it is (re-drawn)
    assert narrowed[0] is root.options[0]
    assert [c.name for c in narrowed[1].children if c.required] == ["b"]
    assert [c.name for c in narrowed[2].children if c.required] == ["c"]


def test_oneof_told_apart_by_required_keys_leaves_rival_keys_out() -> None:
    # every option sees every property: drawn freely, values would carry several rivals' keys
    tags = ["uses", "run", "wait", "cancel", "parallel"]
    step = {"type": "object", "additionalProperties": False,
            "properties": {**{t: {"type": "string"} for t in tags}, "id": {"type": "string"},
                           "shell": {"type": "string"}},
            "dependencies": {"shell": ["run"]},
            "oneOf": [{"required": [t]} for t in tags]}
    schema = {"type": "object", "required": ["steps"],
              "properties": {"steps": {"type": "array", "minItems": 3, "items": step}}}
    records = _records(schema, n=300)
    assert {t for r in records for s in r["steps"] for t in tags if t in s} == set(tags)
    assert any("shell" in s for r in records for s in r["steps"])


def test_rival_keys_are_left_out_at_compile_time() -> None:
    from app.generation.engine.variants import without_rival_keys

    schema = {"$schema": DRAFT, "type": "object", "properties": {"a": {}, "b": {}, "c": {}, "x": {}},
              "dependentRequired": {"x": ["b"]}, "oneOf": [{"required": ["a"]}, {"required": ["b"]}]}
    root = load_schema(json.dumps(schema).encode(), "s.json").field_tree().root
    first, second = without_rival_keys(root.options)
    assert sorted(c.name for c in first.children) == ["a", "c"]  # b, and x that needs b, left out
    assert sorted(c.name for c in second.children) == ["b", "c", "x"]
