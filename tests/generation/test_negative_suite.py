"""Negative records of schemas we did not design: the JSON-Schema-Test-Suite's draft 2020-12
test schemas (tests/fixtures/json-schema-test-suite/draft2020-12/) and SchemaStore schemas of the
corpus. 20 records at invalid rate 1 each, every label checked by jsonschema (the schema's draft,
format checking on): errors only at the labelled location (or an applicator above it), the
labelled keyword among them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from app.generation.errors import GenerationError
from app.generation.schema.files import load_schema_path
from app.generation.schema.loader import load_schema
from tests.generation.negative_checks import check_json_labels, json_validator, negative_json

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "fixtures" / "json-schema-test-suite" / "draft2020-12"
SUMS = dict(line.split()[::-1] for line in (SUITE / "SHA256SUMS").read_text().splitlines())
PER_FILE = 3  # test schemas per keyword file (the first ones the engine can generate)


@pytest.mark.parametrize("name", sorted(SUMS))
def test_suite_schemas_break_one_constraint_each(name: str) -> None:
    content = (SUITE / name).read_bytes()
    assert hashlib.sha256(content).hexdigest() == SUMS[name], "not the file SHA256SUMS names"
    checked = 0
    keywords: set[str] = set()
    for case in json.loads(content):
        schema = case["schema"]
        if not isinstance(schema, dict):
            continue
        try:
            records, labels, _plan = negative_json(load_schema(json.dumps(schema).encode(), name), 20, 1.0)
        except GenerationError:
            continue  # nothing breakable, or a schema the valid engine cannot draw (not this test's)
        assert len(labels) == 20
        check_json_labels(json_validator(schema), records, labels)
        keywords |= {label["keyword"] for label in labels}
        checked += 1
        if checked == PER_FILE:
            break
    assert checked, f"no schema of {name} was checked"
    stem = name.removesuffix(".json")
    if stem not in ("allOf", "items", "prefixItems", "properties", "format"):
        assert stem in keywords, f"the file's own keyword was never broken: {sorted(keywords)}"


CORPUS = [
    "codecov.json",
    "dependabot-2.0.json",
    "github-workflows.json",
    "jsonresume.json",
    "ocpp-v201-TransactionEventRequest.json",
    "ocpp-v16-SetChargingProfile.json",
    "taskfile.json",
]


@pytest.mark.parametrize("name", CORPUS)
def test_schemastore_schemas_break_one_constraint_each(name: str) -> None:
    path = ROOT / "corpus" / "json" / name
    records, labels, _plan = negative_json(load_schema_path(path), 20, 1.0)
    assert len(labels) == 20
    check_json_labels(json_validator(json.loads(path.read_bytes())), records, labels)
    assert len({(label["schema_pointer"]) for label in labels}) > 3, "violations spread over the schema"
