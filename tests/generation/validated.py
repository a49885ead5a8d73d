"""Records of a JSON Schema (2020-12) generated WITHOUT the engine's own guard, then judged by
jsonschema with the draft's format checker: a test sees exactly what an independent validator says."""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def validated_records(schema: dict[str, Any], n: int = 200, seed: int = 3) -> list[Any]:
    loaded = load_schema(json.dumps({"$schema": DRAFT, **schema}).encode(), "s.json")
    plan = compile_plan(loaded, [], {"seed": seed}, record_count=n, use_schema_validator=False)
    records = json.loads(json.dumps(plan.records()))
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    for rec in records:
        errors = list(validator.iter_errors(rec))
        assert not errors, (rec, errors[0].message)
    return records
