"""JSON Schema -> field model: concrete facts on the benchmark schema and on each keyword family."""

from __future__ import annotations

import gc
import json
import re
from decimal import Decimal
from typing import Any

import pytest

from app.generation.model import ChoiceMode, FieldTree, Kind
from app.generation.schema.ecma_regex import translate_ecma_pattern
from app.generation.schema.loader import load_schema
from tests.paths import BENCH


def _tree(doc: dict[str, Any]) -> FieldTree:
    return load_schema(json.dumps(doc).encode()).field_tree()


def test_building_the_field_tree_leaves_no_cyclic_garbage() -> None:
    """`tdg generate` compiles with the cyclic collector paused and then freezes what is left, so
    a cycle made while building the tree is never freed: a recursive closure per flattened node
    left 1.5 million objects (~200 MB, half the peak) on Vega-Lite's schema. The bench schema made
    389 before."""
    loaded = load_schema((BENCH / "customer_order.schema.json").read_bytes())
    gc.collect()
    gc.disable()
    try:
        loaded.field_tree()
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert unreachable <= 20, f"{unreachable} objects of cyclic garbage"


def test_bench_customer_order_facts() -> None:
    loaded = load_schema((BENCH / "customer_order.schema.json").read_bytes())
    tree = loaded.field_tree()
    root = tree.root
    assert root.kind is Kind.OBJECT and root.additional_properties is False
    assert [c.name for c in root.children][:5] == ["id", "uuid", "first_name", "last_name", "email"]
    ident = tree.find("id")
    assert ident.kind is Kind.INTEGER and ident.minimum == 1 and ident.maximum is None and ident.required
    assert tree.find("uuid").format == "uuid"
    assert (tree.find("first_name").min_length, tree.find("first_name").max_length) == (1, 40)
    assert tree.find("phone").patterns == [r"^\+?[0-9]{10,14}\Z"] and not tree.find("phone").pattern_anchored
    assert tree.find("created_at").kind is Kind.DATETIME and tree.find("created_at").format == "date-time"
    assert tree.find("birth_date").kind is Kind.DATE
    assert tree.find("status").enum == ["pending", "paid", "shipped", "cancelled"]
    amount = tree.find("amount")
    assert amount.kind is Kind.NUMBER and amount.multiple_of == Decimal("0.01")
    assert (amount.minimum, amount.maximum) == (Decimal(0), Decimal(100000))
    assert tree.find("referral_code").required is False
    notes = tree.find("notes")
    assert notes.kind is Kind.STRING and notes.nullable and not notes.required and notes.max_length == 200
    assert tree.find("address.postcode").patterns == [r"^[0-9]{5}\Z"]
    items = tree.find("line_items")
    assert items.kind is Kind.ARRAY and (items.min_items, items.max_items) == (1, 5)
    assert items.items.kind is Kind.OBJECT
    assert tree.find("line_items.unit_price").minimum == Decimal("0.01")
    assert tree.find("line_items.quantity").maximum == 100
    assert loaded.field_count == 20


def test_bench_record_validator_uses_format_checker() -> None:
    loaded = load_schema((BENCH / "customer_order.schema.json").read_bytes())
    record = {
        "id": 1, "uuid": "3f2b9c1e-8d4a-4e0b-9a57-2c1d5e6f7a8b", "first_name": "A", "last_name": "B",
        "email": "a@example.com", "phone": "+12345678901", "created_at": "2024-01-02T03:04:05Z",
        "birth_date": "1990-05-06", "status": "paid", "amount": 19.5, "is_vip": False,
        "address": {"street": "s", "city": "c", "postcode": "12345", "country": "DE"},
        "line_items": [{"sku": "ABC-1234", "quantity": 2, "unit_price": 3.5}],
    }
    validator = loaded.record_validator()
    assert validator.json_error(record) is None
    assert validator.json_error({**record, "birth_date": "1990-13-45"}) == (
        "birth_date: '1990-13-45' is not a 'date'")
    bad_items = {**record, "line_items": [{"sku": "x", "quantity": 2, "unit_price": 3.5}]}
    assert validator.json_error(bad_items).startswith("line_items[0].sku: 'x' does not match")
    with pytest.raises(NotImplementedError):
        validator.xml_error("<a/>")


def test_allof_merges_bounds_patterns_enums_properties() -> None:
    tree = _tree({
        "allOf": [
            {"type": "object", "properties": {"n": {"type": "number", "minimum": 0, "maximum": 10},
                                              "s": {"type": "string", "pattern": "^a", "enum": ["ab", "ac", "b"]}},
             "required": ["n"]},
            {"properties": {"n": {"exclusiveMinimum": 2, "maximum": 8, "multipleOf": 0.5},
                            "s": {"pattern": "c$", "enum": ["ac", "b"], "maxLength": 5}},
             "required": ["s"], "additionalProperties": False},
        ],
    })
    n, s = tree.find("n"), tree.find("s")
    assert (n.minimum, n.exclusive_minimum, n.maximum, n.exclusive_maximum) == (Decimal(2), True, Decimal(8), False)
    assert n.multiple_of == Decimal("0.5") and n.required
    assert s.patterns == ["^a", "c\\Z"] and s.enum == ["ac", "b"] and s.max_length == 5 and s.required
    assert tree.root.additional_properties is False


def test_integer_bounds_normalised_inclusive_per_draft() -> None:
    draft4 = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer",
              "minimum": 1, "exclusiveMinimum": True, "maximum": 9.5}
    node = _tree(draft4).root
    assert (node.minimum, node.maximum) == (2, 9)
    node = _tree({"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 10}).root
    assert (node.minimum, node.maximum, node.exclusive_minimum) == (1, 9, False)


def test_multiple_of_lcm() -> None:
    node = _tree({"allOf": [{"type": "number", "multipleOf": 0.25}, {"multipleOf": 0.1}]}).root
    assert node.multiple_of == Decimal("0.5")


def test_oneof_anyof_choice_and_null_option() -> None:
    tree = _tree({
        "type": "object",
        "properties": {
            "id": {"oneOf": [{"type": "string", "format": "uuid"}, {"type": "integer", "minimum": 1}]},
            "maybe": {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]},
        },
    })
    ident = tree.find("id")
    assert ident.kind is Kind.CHOICE and ident.choice_mode is ChoiceMode.ONE_OF
    assert [o.kind for o in ident.options] == [Kind.STRING, Kind.INTEGER]
    assert ident.options[1].minimum == 1
    maybe = tree.find("maybe")
    assert maybe.kind is Kind.STRING and maybe.nullable and maybe.max_length == 3


def test_choice_options_inherit_sibling_keywords() -> None:
    root = _tree({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                  "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}).root
    assert root.kind is Kind.CHOICE and root.choice_mode is ChoiceMode.ANY_OF
    first, second = root.options
    assert first.child("a").required and not first.child("b").required
    assert second.child("b").required and not second.child("a").required


def test_type_lists_nullable_and_union() -> None:
    tree = _tree({"type": "object", "properties": {
        "a": {"type": ["string", "null"], "minLength": 2},
        "b": {"type": ["integer", "string"], "minimum": 3, "maxLength": 4},
        "c": {"type": "string", "nullable": True},
    }})
    a = tree.find("a")
    assert a.kind is Kind.STRING and a.nullable and a.min_length == 2
    b = tree.find("b")
    assert b.kind is Kind.CHOICE and b.choice_mode is ChoiceMode.UNION and not b.nullable
    assert {o.kind: o for o in b.options}[Kind.INTEGER].minimum == 3
    assert {o.kind: o for o in b.options}[Kind.STRING].max_length == 4
    assert tree.find("c").nullable


def test_conditionals_and_dependencies() -> None:
    root = _tree({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"country": {"enum": ["US", "DE"]}, "zip": {"type": "string"}, "card": {},
                       "billing": {"type": "string"}},
        "if": {"properties": {"country": {"const": "US"}}},
        "then": {"required": ["zip"]},
        "else": {"properties": {"zip": {"pattern": "^[0-9]{5}$"}}},
        "dependencies": {"card": ["billing"]},
    }).root
    assert len(root.conditionals) == 1
    cond = root.conditionals[0]
    assert cond.if_.child("country").has_const and cond.if_.child("country").const == "US"
    assert cond.then.child("zip").required
    assert cond.else_.child("zip").patterns == ["^[0-9]{5}\\Z"]
    assert root.dependent_required == {"card": ["billing"]}
    assert root.child("country").enum == ["US", "DE"] and root.child("country").kind is Kind.STRING
    root = _tree({"type": "object", "dependentRequired": {"a": ["b", "c"]}}).root
    assert root.dependent_required == {"a": ["b", "c"]}


def test_const_and_enum_filtered_by_type() -> None:
    tree = _tree({"type": "object", "properties": {
        "k": {"const": 5}, "e": {"type": "string", "enum": ["x", 1, None]}}})
    k = tree.find("k")
    assert k.kind is Kind.INTEGER and k.has_const and k.const == 5 and k.enum == [5]
    assert tree.find("e").enum == ["x"]


def test_tuples_2020_and_legacy() -> None:
    node = _tree({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False}).root
    assert [p.kind for p in node.prefix_items] == [Kind.STRING, Kind.INTEGER]
    assert node.items is None and node.max_items == 2
    legacy = _tree({"$schema": "http://json-schema.org/draft-07/schema#", "type": "array",
                    "items": [{"type": "boolean"}], "additionalItems": {"type": "number"}}).root
    assert [p.kind for p in legacy.prefix_items] == [Kind.BOOLEAN]
    assert legacy.items.kind is Kind.NUMBER


def test_formats_map_to_kinds() -> None:
    tree = _tree({"type": "object", "properties": {
        "d": {"type": "string", "format": "date"}, "t": {"type": "string", "format": "time"},
        "u": {"type": "string", "format": "uri"}}})
    assert tree.find("d").kind is Kind.DATE and tree.find("d").format == "date"
    assert tree.find("t").kind is Kind.TIME
    assert tree.find("u").kind is Kind.STRING and tree.find("u").format == "uri"


def test_unsupported_keywords_are_listed() -> None:
    root = _tree({"type": "object", "patternProperties": {"^x-": {}}, "not": {"required": ["a"]},
                  "properties": {"l": {"type": "array", "contains": {"type": "string"}}},
                  "additionalProperties": {"type": "string"}}).root
    assert any("patternProperties" in u for u in root.unsupported)
    assert any("'not'" in u for u in root.unsupported)
    assert any("additionalProperties" in u for u in root.unsupported)
    assert any("contains" in u for u in root.child("l").unsupported)


def test_ref_siblings_per_draft() -> None:
    defs = {"$defs": {"S": {"type": "string", "maxLength": 9}}}
    modern = _tree({"type": "object", "properties": {"a": {"$ref": "#/$defs/S", "minLength": 2}}, **defs})
    assert (modern.find("a").min_length, modern.find("a").max_length) == (2, 9)
    legacy = _tree({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                    "properties": {"a": {"$ref": "#/definitions/S", "minLength": 2}},
                    "definitions": {"S": {"type": "string", "maxLength": 9}}})
    assert (legacy.find("a").min_length, legacy.find("a").max_length) == (None, 9)


def test_shared_non_recursive_refs_are_inlined() -> None:
    tree = _tree({"type": "object", "properties": {"a": {"$ref": "#/$defs/P"}, "b": {"$ref": "#/$defs/P"}},
                  "$defs": {"P": {"type": "object", "properties": {"x": {"type": "integer"}}}}})
    assert tree.find("a.x").kind is Kind.INTEGER and tree.find("b.x").kind is Kind.INTEGER
    assert tree.definitions == {}


def test_exponential_refs_are_cut_by_the_node_budget() -> None:
    defs = {"L0": {"type": "string"}}
    for level in range(1, 25):
        defs[f"L{level}"] = {"type": "object", "properties": {
            "left": {"$ref": f"#/$defs/L{level - 1}"}, "right": {"$ref": f"#/$defs/L{level - 1}"}}}
    tree = _tree({"$ref": "#/$defs/L24", "$defs": defs})
    nodes = sum(1 for _ in tree.root.walk()) + sum(sum(1 for _ in d.walk()) for d in tree.definitions.values())
    assert nodes < 50_000
    assert any("REF" in u for u in tree.root.unsupported)
    assert all(ref in tree.definitions for ref in {n.ref for n in tree.root.walk() if n.kind is Kind.REF})


@pytest.mark.parametrize(
    ("ecma", "python", "matches", "rejects"),
    [
        (r"^\d+$", r"^[0-9]+\Z", ["123"], ["١٢٣", "12\n"]),
        (r"^\w+$", r"^[A-Za-z0-9_]+\Z", ["a_1"], ["é"]),
        (r"^a.b$", None, ["axb"], ["a\nb", "a\rb"]),
        (r"^[\d\s]+$", None, ["1 2\u00a0"], ["x"]),
        (r"^(?<y>[0-9]{4})-\k<y>$", None, ["2020-2020"], ["2020-2021"]),
        (r"^\cJ$", None, ["\n"], ["J"]),
        (r"^[^]$", None, ["\n"], [""]),
        (r"^\u{1F600}$", None, ["\U0001F600"], ["x"]),
    ],
)
def test_ecma_translation(ecma: str, python: str | None, matches: list[str], rejects: list[str]) -> None:
    translated = translate_ecma_pattern(ecma)
    if python is not None:
        assert translated == python
    for text in matches:
        assert re.search(translated, text), text
    for text in rejects:
        assert not re.search(translated, text), text


def test_ecma_unicode_property_escape_is_reported() -> None:
    with pytest.raises(ValueError, match="property escapes"):
        translate_ecma_pattern(r"\p{L}+")
