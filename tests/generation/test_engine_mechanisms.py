"""Generation mechanisms added for corpus coverage: `not`, dependentSchemas, patternProperties /
additionalProperties with minProperties, enum values filtered by sibling facets, impossible type
intersections inside oneOf, abstract XSD roots. Every record is judged by jsonschema with the
draft's own format checker (or the engine's xmlschema guard)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.generation.errors import GenerationError
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from tests.generation.validated import validated_records


def _records(schema: dict[str, Any], n: int = 200, seed: int = 3) -> list[Any]:
    return validated_records(schema, n, seed)


def test_not_required_group_keeps_members_apart() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"},
                                               "c": {"type": "integer"}},
              "not": {"required": ["a", "b"]}}
    records = _records(schema)
    assert any("a" in r for r in records) and any("b" in r for r in records)


def test_not_of_anyof_forbids_each_branch() -> None:
    schema = {"type": "object", "properties": {"x": {"type": "string"}, "y": {"type": "string"},
                                               "z": {"type": "string"}},
              "required": ["z"], "not": {"anyOf": [{"required": ["x"]}, {"required": ["y"]}]}}
    assert all(set(r) == {"z"} for r in _records(schema))


def test_not_forbidding_required_members_fails_naming_the_field() -> None:
    schema = {"type": "object", "properties": {"o": {
        "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "required": ["a", "b"], "not": {"required": ["a", "b"]}}}, "required": ["o"]}
    with pytest.raises(GenerationError, match=r"^o: 'not' forbids a, b together"):
        _records(schema, n=5)


def test_not_pattern_and_not_enum_on_strings() -> None:
    schema = {"type": "object", "required": ["s", "t"], "properties": {
        "s": {"type": "string", "pattern": "^[a-c]{1,2}$", "not": {"pattern": "^a"}},
        "t": {"enum": ["red", "green", "blue"], "not": {"enum": ["green"]}}}}
    records = _records(schema)
    assert all(not r["s"].startswith("a") for r in records)
    assert {r["t"] for r in records} == {"red", "blue"}


def test_not_on_object_property_value_is_redrawn() -> None:
    schema = {"type": "object", "required": ["m"], "properties": {"m": {
        "type": "object", "required": ["kind"],
        "properties": {"kind": {"enum": ["group", "rect", "line"]}},
        "not": {"properties": {"kind": {"const": "group"}}}}}}
    assert {r["m"]["kind"] for r in _records(schema)} == {"rect", "line"}


def test_not_empty_schema_leaves_the_property_out() -> None:
    schema = {"type": "object", "properties": {"keep": {"type": "string"}},
              "allOf": [{"properties": {"gone": {"type": "string"}}}, {"properties": {"gone": {"not": {}}}}]}
    assert all("gone" not in r for r in _records(schema))


def test_dependent_schemas_not_required() -> None:
    schema = {"type": "object", "properties": {"identifier": {"type": "string"}, "url": {"type": "string"},
                                               "name": {"type": "string"}},
              "dependentSchemas": {"identifier": {"not": {"required": ["url"]}}}}
    records = _records(schema)
    assert any("identifier" in r for r in records) and any("url" in r for r in records)


def test_pattern_properties_meet_min_properties() -> None:
    schema = {"type": "object", "required": ["vars"], "properties": {"vars": {
        "type": "object", "minProperties": 2, "maxProperties": 4, "additionalProperties": False,
        "patternProperties": {"^[A-Z][A-Z0-9_]*$": {"type": "string", "maxLength": 8}}}}}
    records = _records(schema)
    assert all(2 <= len(r["vars"]) <= 4 for r in records)
    assert all(re.match(r"^[A-Z][A-Z0-9_]*$", k) for r in records for k in r["vars"])


def test_additional_properties_schema_meets_min_properties_with_property_names() -> None:
    schema = {"type": "object", "required": ["env"], "properties": {"env": {
        "type": "object", "minProperties": 1, "additionalProperties": {"type": "integer", "minimum": 1},
        "propertyNames": {"pattern": "^env_[a-z]{2,6}$"}}}}
    records = _records(schema)
    assert all(len(r["env"]) >= 1 for r in records)


def test_min_properties_beyond_what_can_be_generated_fails_fast() -> None:
    schema = {"type": "object", "required": ["o"], "properties": {"o": {
        "type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False,
        "minProperties": 2}}}
    with pytest.raises(GenerationError, match=r"^o: minProperties 2 cannot be met"):
        _records(schema, n=5)


def test_anyof_of_objects_with_enum_tag_and_pattern() -> None:
    # each branch pins the tag by pattern over a base listing every tag: only the matching enum value survives
    tags = {"anyOf": [{"enum": ["Alpha@1"]}, {"enum": ["Beta@2"]}, {"enum": ["Gamma@3"]}]}
    schema = {"type": "object", "properties": {"task": tags, "inputs": {"type": "object"}},
              "additionalProperties": False, "required": ["task"],
              "anyOf": [
                  {"properties": {"task": {"pattern": "^Alpha@1$"}, "inputs": {
                      "properties": {"a": {"type": "string"}}, "additionalProperties": False}}},
                  {"properties": {"task": {"pattern": "^Beta@2$"}, "inputs": {
                      "properties": {"b": {"type": "integer"}}, "required": ["b"], "additionalProperties": False}},
                   "required": ["inputs"]}]}
    records = _records(schema)
    assert {r["task"] for r in records} == {"Alpha@1", "Beta@2"}


def test_oneof_with_the_same_subschema_merged_twice_stays_exclusive() -> None:
    versions = {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}, "minItems": 1}]}
    schema = {"$defs": {"v": versions}, "type": "object",
              "properties": {"versions": {"$ref": "#/$defs/v"}, "name": {"type": "string"}},
              "anyOf": [{"properties": {"versions": {"$ref": "#/$defs/v"}}, "required": ["versions"]},
                        {"required": ["name"]}]}
    records = _records(schema)
    assert any(isinstance(r.get("versions"), list) for r in records)


def test_abstract_only_xsd_is_refused_at_upload() -> None:
    """Only abstract global elements, none substituted: no document can exist (xlink.xsd)."""
    xsd = b"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
      <xs:element name="thing" abstract="true" type="xs:string"/>
      <xs:element name="other" abstract="true"><xs:complexType/></xs:element>
    </xs:schema>"""
    with pytest.raises(GenerationError, match=r"all abstract \(thing, other\).*no document can have a root"):
        load_schema(xsd, "a.xsd")


def test_abstract_root_chosen_explicitly_fails_with_a_clear_reason() -> None:
    xsd = b"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
      <xs:element name="thing" abstract="true" type="xs:string"/>
      <xs:element name="real" type="xs:int"/>
    </xs:schema>"""
    loaded = load_schema(xsd, "a.xsd")
    assert loaded.default_root == "real"
    with pytest.raises(GenerationError, match="root element is abstract"):
        compile_plan(loaded, [], {"seed": 1, "root": "thing"}, record_count=5)


def test_abstract_head_with_a_concrete_member_is_accepted() -> None:
    xsd = b"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
      <xs:element name="shape" abstract="true" type="xs:string"/>
      <xs:element name="circle" type="xs:string" substitutionGroup="shape"/>
    </xs:schema>"""
    assert load_schema(xsd, "s.xsd").default_root == "circle"


def test_concrete_xsd_root_preferred_over_abstract() -> None:
    xsd = b"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
      <xs:element name="base" abstract="true" type="xs:string"/>
      <xs:element name="real"><xs:complexType><xs:sequence>
        <xs:element name="n" type="xs:int"/></xs:sequence></xs:complexType></xs:element>
    </xs:schema>"""
    loaded = load_schema(xsd, "b.xsd")
    assert loaded.default_root == "real"
    plan = compile_plan(loaded, [], {"seed": 1}, record_count=50)
    import io
    plan.write("xml", io.BytesIO())  # the guard validates every record with xmlschema


_ASSERT_XSD = """<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"
    xmlns:vc="http://www.w3.org/2007/XMLSchema-versioning" vc:minVersion="1.1">
  <xs:element name="r"><xs:complexType><xs:sequence>
    <xs:element name="span" maxOccurs="3"><xs:complexType>
      <xs:attribute name="lo" type="xs:int" use="required"/>
      <xs:attribute name="hi" type="xs:int" use="required"/>
      <xs:assert test="TEST"/>
    </xs:complexType></xs:element>
    <xs:element name="opt" minOccurs="0"><xs:complexType>
      <xs:attribute name="a" type="xs:int"/><xs:assert test="@a gt 0"/>
    </xs:complexType></xs:element>
  </xs:sequence></xs:complexType></xs:element>
</xs:schema>"""


def test_xs_assert_is_met_by_redrawing_what_xmlschema_finds_false() -> None:
    import io
    from xml.etree import ElementTree

    loaded = load_schema(_ASSERT_XSD.replace("TEST", "@lo le @hi").encode(), "c.xsd")
    plan = compile_plan(loaded, [], {"seed": 1}, record_count=200)
    out = io.BytesIO()
    plan.write("xml", out)  # the guard validates every record with xmlschema (assertions included)
    doc = ElementTree.fromstring(out.getvalue())
    spans = doc.findall(".//span")
    opts = doc.findall(".//opt")
    assert spans and all(int(e.get("lo")) <= int(e.get("hi")) for e in spans)
    assert opts and all(int(e.get("a")) > 0 for e in opts)  # an optional attribute the test needs


def test_xs_assert_never_true_fails_fast_naming_it() -> None:
    loaded = load_schema(_ASSERT_XSD.replace("TEST", "@lo lt @lo").encode(), "c.xsd")
    with pytest.raises(GenerationError, match=r"span: could not draw content meeting its xs:assert .*assertion test is false"):
        compile_plan(loaded, [], {"seed": 1}, record_count=5)
