"""Checking negative records and their labels with the independent validators (shared by the
negative-data tests)."""

from __future__ import annotations

import io
from typing import Any

import jsonschema
import orjson

from app.generation.negative.engine import attach_negative
from app.generation.negative.judge import judge_json
from app.generation.plan import compile_plan


def json_validator(schema: dict[str, Any]) -> Any:
    """jsonschema for the schema's own draft, format checking on (the draft's checker)."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def steps(pointer: str) -> tuple[Any, ...]:
    """A label's pointer as jsonschema's error path (array positions as ints)."""
    out: list[Any] = []
    for raw in pointer.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        out.append(int(part) if part.isdigit() else part)
    return tuple(out)


def negative_json(loaded: Any, count: int, rate: float, seed: int = 5, fmt: str = "json", **kw: Any) -> Any:
    """(records, labels, plan) of a run with `rate` invalid records."""
    plan = compile_plan(loaded, [], {"seed": seed}, record_count=count)
    attach_negative(plan, loaded, rate=rate, formats=(fmt,), **kw)
    out, labels = io.BytesIO(), io.BytesIO()
    plan.write(fmt, out, labels=labels)
    if fmt == "json":
        records = orjson.loads(out.getvalue())
    else:
        records = [orjson.loads(line) for line in out.getvalue().splitlines()]
    return records, [orjson.loads(line) for line in labels.getvalue().splitlines()], plan


def check_json_labels(validator: Any, records: list[Any], labels: list[dict[str, Any]]) -> None:
    """Every labelled record breaks its labelled constraint alone; every other record is valid."""
    by_record = {label["record"]: label for label in labels}
    assert len(by_record) == len(labels), "one label per invalid record"
    for i, record in enumerate(records):
        errors = list(validator.iter_errors(record))
        label = by_record.get(i)
        if label is None:
            assert not errors, f"record {i} is unlabelled but invalid: {errors[0].message}"
            continue
        assert set(label) == {"record", "pointer", "keyword", "schema_pointer", "rule", "detail"}
        reason, _ = judge_json(errors, steps(label["pointer"]), label["keyword"])
        assert reason is None, f"record {i} {label}: {reason}"
        assert label["schema_pointer"].endswith("/" + label["keyword"])
