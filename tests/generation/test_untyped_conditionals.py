"""if/then/else the drawer could not meet (issue 32 item 5): keywords without a `type` bind only
values of their own type (`{exclusiveMaximum: 0}` holds for any object), and a schema of
if/then/else alone whose branches list their values is drawn from those values. The cases follow
the JSON-Schema-Test-Suite's draft 2020-12 if-then-else file (written here, not copied); every
record is checked by jsonschema with format checking, and each schema failed before."""

from __future__ import annotations

import io
import json
from typing import Any

import jsonschema
import orjson
import pytest

from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema

S = "https://json-schema.org/draft/2020-12/schema"
CASES: dict[str, tuple[dict[str, Any], set[str] | None]] = {
    # (schema, the distinct records expected as JSON text; None: any valid ones)
    "if and else without then": ({"$schema": S, "if": {"exclusiveMaximum": 0}, "else": {"multipleOf": 2}}, None),
    "then and else": (
        {"$schema": S, "if": {"exclusiveMaximum": 0}, "then": {"minimum": -10}, "else": {"multipleOf": 2}}, None,
    ),
    "if true takes then": ({"$schema": S, "if": True, "then": {"const": "then"}, "else": {"const": "else"}}, {'"then"'}),
    "if false takes else": ({"$schema": S, "if": False, "then": {"const": "then"}, "else": {"const": "else"}}, {'"else"'}),
    "if written last": (
        {"$schema": S, "then": {"const": "yes"}, "else": {"const": "other"}, "if": {"maxLength": 4}}, {'"yes"', '"other"'},
    ),
    "else false": ({"$schema": S, "if": {"const": 1}, "else": False}, {"1"}),
    "enum branches": (
        {"$schema": S, "if": {"type": "string"}, "then": {"enum": ["a", "b", 3]}, "else": {"enum": [4, 5, "c"]}},
        {'"a"', '"b"', "4", "5"},
    ),
    # an object property whose condition reads a number keyword: other types meet it
    "untyped property condition": (
        {"$schema": S, "type": "object", "required": ["n"], "properties": {
            "n": {"if": {"minimum": 10}, "then": {"multipleOf": 5}, "else": {"const": "small"}}}},
        None,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_conditions_met(name: str) -> None:
    schema, expected = CASES[name]
    plan = compile_plan(load_schema(json.dumps(schema).encode(), "s.json"), [], {"seed": 3}, record_count=300)
    out = io.BytesIO()
    plan.write("json", out)
    records = orjson.loads(out.getvalue())
    assert len(records) == 300
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for record in records:
        validator.validate(record)
    if expected is not None:
        assert {json.dumps(r) for r in records} == expected


def test_a_typed_node_still_refuses_other_types() -> None:
    """`type` stays binding: a string option of a oneOf does not accept a number."""
    from app.generation.engine.matcher import accepts

    loaded = load_schema(json.dumps({"type": "string", "minLength": 2}).encode(), "t.json")
    typed = loaded.field_tree().root
    assert not accepts(typed, 5, {}) and accepts(typed, "ab", {}) and not accepts(typed, "a", {})
    loaded = load_schema(json.dumps({"minLength": 2}).encode(), "u.json")
    untyped = loaded.field_tree().root
    assert accepts(untyped, 5, {}) and accepts(untyped, None, {}) and not accepts(untyped, "a", {})
