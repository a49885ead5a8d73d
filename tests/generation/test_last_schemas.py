"""The last real JSON Schemas of the 200-record census that timed out (issue 32, item 5): ajv's
secure meta-schema (a schema dependency no nested record can meet, re-drawn at every level of the
recursion) and Octokit's webhooks (a oneOf of ~300 events whose guard listed every error of every
option). Records are judged by stock jsonschema for the schema's draft with format checking."""

from __future__ import annotations

import io
import json
from typing import Any

import jsonschema
import pytest

from app.generation.guard import JsonSchemaRecordValidator
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from tests.generation.corpus import CORPUS
from tests.generation.validated import validated_records


def _valid_records(name: str, count: int) -> list[Any]:
    """`count` json records of the corpus schema `name`, each validated by stock jsonschema."""
    path = CORPUS / "json" / name
    schema = json.loads(path.read_bytes())
    plan = compile_plan(load_schema(path.read_bytes(), path.name), [], {"seed": 5}, record_count=count)
    out = io.BytesIO()
    plan.write("json", out, guard=True)
    records: list[Any] = json.loads(out.getvalue())
    cls = jsonschema.validators.validator_for(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    for record in records:
        validator.validate(record)
    return records


@pytest.mark.parametrize("name", ["ajv-json-schema-secure.json", "octokit-webhooks.json"])
def test_real_schema_generates_twenty_valid_records_quickly(name: str) -> None:
    # each took over 60 s for 200 records (a speed measured by benchmarks/corpus_census.py, not here)
    assert len(_valid_records(name, 20)) == 20


def test_a_dependency_no_record_can_meet_leaves_its_trigger_out() -> None:
    # `pattern` needs `maxLength`, which the object never draws: `pattern` must be left out
    # (it was re-drawn until REDRAWS ran out, at every nesting level)
    node = {
        "type": "object",
        "properties": {"pattern": {"type": "string"}, "name": {"type": "string"}},
        "dependencies": {"pattern": {"required": ["maxLength"], "properties": {"maxLength": {"const": 1}}}},
    }
    schema = {
        "type": "object",
        "required": ["inner"],
        "properties": {"inner": {"type": "array", "minItems": 1, "items": node}},
    }
    records = validated_records(schema, n=100)
    items = [item for r in records for item in r["inner"]]
    assert not any("pattern" in item for item in items)
    # the row is kept, not re-drawn: `name` keeps its presence (0.8; re-drawn rows lose it in
    # the late, minimal rounds, about 0.55 overall)
    share = sum("name" in item for item in items) / len(items)
    assert share > 0.7, share


def test_the_quick_guard_pass_tells_valid_from_invalid_and_keeps_the_stock_message() -> None:
    schema = {
        "oneOf": [{"type": "object", "required": ["a"]}, {"type": "object", "required": ["b"]}],
        "properties": {"c": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
    }
    guard = JsonSchemaRecordValidator(jsonschema.Draft7Validator(schema))
    assert guard.json_error({"a": 1, "c": 2}) is None
    both = guard.json_error({"a": 1, "b": 2})
    assert both is not None and "is valid under each of" in both
    assert guard.json_error({"c": 1}) is not None  # neither option
    wrong = guard.json_error({"a": 1, "c": 1.5})
    assert wrong is not None and wrong.startswith("c: 1.5 is not valid under any of the given schemas")


def test_vega_records_have_their_outline() -> None:
    """Vega 5's `encode` alone used the tree's 100,000 nodes, leaving the 19 other root properties
    unmodelled: every record was `{"encode": {}}` or `{}`. The tree is built again with the nodes
    shared between properties: the records hold most root properties, all valid."""
    records = _valid_records("vega-v5.json", 30)
    seen = {key for record in records for key in record}
    assert len(seen) >= 12, seen  # of 20
    assert sum(len(record) for record in records) / len(records) >= 5
