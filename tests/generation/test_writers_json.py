"""The JSON and NDJSON writers build whole chunks from templates (nested objects inlined, one join
per chunk); their text must always parse back to exactly the records, whatever the shape."""

from __future__ import annotations

import io
import json

import orjson
import pytest

from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema

SHAPES = {
    # the first member always present: the one-join path, with a nested object inlined
    "required first": {"type": "object", "required": ["id", "inner", "rows"], "properties": {
        "id": {"type": "integer"},
        "inner": {"type": "object", "required": ["a"], "properties": {
            "a": {"type": "string", "maxLength": 3}, "b": {"type": "boolean"}}},
        # never empty: items and separators joined once for all rows, then split per row
        "rows": {"type": "array", "minItems": 1, "maxItems": 4, "items": {
            "type": "object", "required": ["q"], "properties": {"q": {"type": "integer"}}}}}},
    # first members optional (no leading constant), a nested object in every row but sometimes
    # null, an optional nested one, awkward keys
    "optional first": {"type": "object", "required": ["z", "nested"], "properties": {
        "%s": {"type": "string", "pattern": "^[a-z%\"\\\\]{1,4}$"},
        "100%%": {"type": "integer"},
        "z": {"type": "string", "enum": ["x", "y\"q", "line\nbreak"]},
        "nested": {"type": ["object", "null"], "required": ["k"], "properties": {
            "k": {"type": "integer"}, "opt": {"type": "string"}}},
        "deep": {"type": "object", "properties": {"o": {"type": "object", "properties": {
            "p": {"type": "number"}}}}},
        "list": {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 2}}}},
    # arrays of objects never empty, items whose first member is always there: the items of all
    # rows joined once with their closing pieces; awkward keys and values inside the items, an
    # optional member, a nested object in each item, and an array nested in each item
    "object arrays": {"type": "object", "required": ["id", "rows"], "properties": {
        "id": {"type": "integer"},
        "rows": {"type": "array", "minItems": 1, "maxItems": 5, "items": {
            "type": "object", "required": ["q%", "text", "pos"], "properties": {
                "q%": {"type": "integer"},
                "text": {"type": "string", "pattern": "^[a-z%\"\\\\]{1,4}$"},
                "maybe": {"type": "boolean"},
                "pos": {"type": "object", "required": ["x"], "properties": {"x": {"type": "number"}}},
                "tags": {"type": "array", "minItems": 1, "maxItems": 2, "items": {
                    "type": "object", "required": ["t"], "properties": {"t": {"type": "string", "maxLength": 3}}}},
            }}}}},
}


@pytest.mark.parametrize("shape", SHAPES)
def test_json_and_ndjson_parse_back_to_the_records(shape: str) -> None:
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **SHAPES[shape]}
    plan = compile_plan(load_schema(json.dumps(schema).encode(), "s.json"), [], {"seed": 5}, record_count=5000)
    expected = orjson.loads(orjson.dumps(plan.records()))
    ndjson, array = io.BytesIO(), io.BytesIO()
    plan.write_many([("ndjson", ndjson), ("json", array)])
    lines = ndjson.getvalue().decode().split("\n")
    assert lines[-1] == "" and [orjson.loads(line) for line in lines[:-1]] == expected
    assert orjson.loads(array.getvalue()) == expected
    assert shape == "object arrays" or any("inner" in r or "nested" in r for r in expected)
    arrays = [r.get("rows", r.get("list")) for r in expected]
    assert any(a for a in arrays if a is not None)
    if shape == "object arrays":
        items = [item for r in expected for item in r["rows"]]
        assert len({len(r["rows"]) for r in expected}) == 5 and any("tags" in i for i in items)
        assert any("maybe" in i for i in items) and any("maybe" not in i for i in items)
