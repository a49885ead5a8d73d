"""`not` excluding members of a type union (issue 32 item 5): a `not` naming whole types through
`anyOf` (`not: {anyOf: [{type: integer}, {type: boolean}]}`) removes them from the union, and a
`not` listing null (`enum: [null, false]`, `const: null`) removes null, which the drawer never
re-draws. Each failed before ('could not draw values outside its not subschema', an invalid
null); every record is checked by jsonschema with format checking."""

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
CASES: dict[str, tuple[dict[str, Any], set[str]]] = {
    # (schema, the JSON types the records must show)
    "not anyOf of types": (
        {"$schema": S, "type": ["string", "integer", "boolean"], "not": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}},
        {"str"},
    ),
    "not enum with null": (
        {"$schema": S, "type": ["string", "boolean", "null"], "not": {"enum": [None, False]}}, {"str", "bool"},
    ),
    "not const null in a property": (
        {"$schema": S, "type": "object", "required": ["v"],
         "properties": {"v": {"type": ["integer", "null"], "not": {"const": None}}}},
        {"dict"},
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_not_excludes_union_members(name: str) -> None:
    schema, kinds = CASES[name]
    plan = compile_plan(load_schema(json.dumps(schema).encode(), "s.json"), [], {"seed": 5}, record_count=400)
    out = io.BytesIO()
    plan.write("json", out)
    records = orjson.loads(out.getvalue())
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for record in records:
        validator.validate(record)
    assert {type(r).__name__ for r in records} == kinds
    assert False not in records
