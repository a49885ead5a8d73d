"""Bounds as large as schemas generated from .NET or Swagger write them (maxLength 2**31-1) cost a
coverage set or an invalid record no more than any other field: the bound that cannot be met within
the per-field limit is reported unreachable (coverage) or not offered (negative data), instead of a
string of two billion characters in the API process."""

from __future__ import annotations

import json
import resource
from pathlib import Path

import pytest

from app.generation.cli import generate
from app.generation.errors import ParamsError
from app.generation.negative.engine import attach_negative
from app.generation.plan import compile_plan
from app.generation.schema.files import load_schema_path
from tests.generation.negative_checks import check_json_labels, json_validator, negative_json

HUGE = 2**31 - 1
SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": HUGE},
        "code": {"type": "string", "maxLength": 8},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 5}, "maxItems": HUGE},
        "extra": {"type": "object", "maxProperties": HUGE},
    },
    "required": ["name", "code", "tags"],
    "additionalProperties": False,
}


@pytest.fixture
def schema_file(tmp_path: Path) -> Path:
    path = tmp_path / "huge.schema.json"
    path.write_text(json.dumps(SCHEMA))
    return path


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_coverage_reports_a_huge_bound_unreachable(tmp_path: Path, schema_file: Path) -> None:
    before = _peak_mib()
    out = tmp_path / "out.json"
    generate(schema_file, None, "json", str(out), seed=7, coverage="each", jobs=1)
    report = json.loads((tmp_path / "out.json.coverage.json").read_text())
    huge = [t for t in report["targets"] if t["kind"] == "bound" and t["value"] == HUGE]
    assert {t["keyword"] for t in huge} == {"maxLength", "maxItems"}
    assert all(t["record"] is None and t["reason"] for t in huge), huge
    assert "limit" in next(t["reason"] for t in huge if t["keyword"] == "maxLength")
    met = [t for t in report["targets"] if t["pointer"] == "/code" and t["value"] == 8]
    assert met and met[0]["record"] is not None  # the ordinary bound beside it is still met
    assert _peak_mib() - before < 200


def test_negative_data_does_not_offer_a_huge_bound(schema_file: Path) -> None:
    loaded = load_schema_path(schema_file)
    plan = compile_plan(loaded, [], {"seed": 3}, record_count=20)
    for keyword in ("maxItems", "maxProperties"):
        with pytest.raises(ParamsError, match=keyword):
            attach_negative(plan, loaded, rate=1.0, keywords=[keyword])
    before = _peak_mib()
    records, labels, _ = negative_json(loaded, 20, 1.0, keywords=["maxLength"])
    # only the field whose bound a record can pass is broken
    assert {label["pointer"] for label in labels} <= {"/code"} | {f"/tags/{i}" for i in range(64)}
    assert all(not label["pointer"].startswith("/name") for label in labels)
    check_json_labels(json_validator(SCHEMA), records, labels)
    assert _peak_mib() - before < 200
