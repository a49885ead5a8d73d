"""Three JSON-Schema-Test-Suite schemas (tests/fixtures/json-schema-test-suite/), kept outside the
corpus as an independent check: a detached draft-06 `$ref`, a recursive tree through
`$dynamicRef`, and the suite's own test-file schema generate records that jsonschema accepts
under the schema's draft with format checking on."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import jsonschema
import orjson
import pytest

from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema

HERE = Path(__file__).resolve().parents[1] / "fixtures" / "json-schema-test-suite"
SOURCES = json.loads((HERE / "sources.json").read_text())


@pytest.mark.parametrize("entry", SOURCES, ids=[e["id"] for e in SOURCES])
def test_suite_schema_generates_valid_records(entry: dict[str, str]) -> None:
    content = (HERE / entry["path"]).read_bytes()
    assert hashlib.sha256(content).hexdigest() == entry["sha256"], "not the file the sources name"
    loaded = load_schema(content, entry["path"])
    plan = compile_plan(loaded, [], {"seed": 7}, record_count=200)
    out = io.BytesIO()
    plan.write("json", out)
    records = orjson.loads(out.getvalue())
    assert len(records) == 200
    schema = json.loads(content)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    for record in records:
        validator.validate(record)


def test_the_tree_is_recursive() -> None:
    loaded = load_schema((HERE / "tree.json").read_bytes(), "tree.json")
    tree = loaded.field_tree()
    assert any(n.kind.value == "ref" for n in tree.root.walk())
