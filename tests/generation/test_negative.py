"""Negative records: the exact invalid count, reproducibility whatever the ranges and files, the
command line (`tdg generate --invalid-rate`), keyword choice and the refusals."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import orjson
import pytest

from app.generation.cli import generate
from app.generation.errors import ParamsError
from app.generation.negative.engine import attach_negative
from app.generation.negative.instance import locations, put, remove
from app.generation.negative.selection import Selection, invalid_count
from app.generation.plan import compile_plan
from app.generation.schema.files import load_schema_path
from tests.generation.negative_checks import check_json_labels, json_validator, negative_json

BENCH = Path(__file__).resolve().parents[1] / "fixtures" / "bench" / "customer_order.schema.json"


@pytest.fixture(scope="module")
def order() -> tuple[object, dict]:
    return load_schema_path(BENCH), json.loads(BENCH.read_bytes())


def test_mixed_run_has_exactly_the_rate_invalid(order: tuple) -> None:
    loaded, schema = order
    records, labels, _plan = negative_json(loaded, 1000, 0.1, fmt="ndjson")
    assert len(records) == 1000 and len(labels) == 100
    check_json_labels(json_validator(schema), records, labels)
    valid = [r for i, r in enumerate(records) if i not in {label["record"] for label in labels}]
    assert len(valid) == 900
    # spread over the schema's constraints, not always the first
    assert len({label["schema_pointer"] for label in labels}) >= 20
    assert [label["record"] for label in labels] == sorted(label["record"] for label in labels)


def test_same_bytes_whatever_the_ranges(order: tuple) -> None:
    loaded, _ = order
    plan = compile_plan(loaded, [], {"seed": 11}, record_count=600)
    attach_negative(plan, loaded, rate=0.3, formats=("json", "ndjson"))
    whole, whole_labels = io.BytesIO(), io.BytesIO()
    plan.write_many([("ndjson", whole)], labels=whole_labels, chunk_size=100)
    parts, part_labels = io.BytesIO(), io.BytesIO()
    for a, b in [(0, 130), (130, 401), (401, 600)]:
        again = compile_plan(loaded, [], {"seed": 11}, record_count=600)
        attach_negative(again, loaded, rate=0.3, formats=("ndjson",))
        again.write("ndjson", parts, a, b, labels=part_labels)
    assert parts.getvalue() == whole.getvalue()
    assert part_labels.getvalue() == whole_labels.getvalue()
    assert len(whole_labels.getvalue().splitlines()) == 180


def test_json_array_frames_broken_records(order: tuple) -> None:
    loaded, schema = order
    records, labels, _ = negative_json(loaded, 50, 1.0, fmt="json")
    assert len(records) == 50 and len(labels) == 50
    check_json_labels(json_validator(schema), records, labels)


def test_keywords_narrow_the_choice(order: tuple) -> None:
    loaded, schema = order
    records, labels, _ = negative_json(loaded, 40, 1.0, keywords=["required", "maxLength"])
    assert {label["keyword"] for label in labels} == {"required", "maxLength"}
    check_json_labels(json_validator(schema), records, labels)


def test_refusals(order: tuple) -> None:
    loaded, _ = order
    plan = compile_plan(loaded, [], {"seed": 1}, record_count=10)
    with pytest.raises(ParamsError, match="between 0 and 1"):
        attach_negative(plan, loaded, rate=1.5)
    with pytest.raises(ParamsError, match="uniqueItems"):
        attach_negative(plan, loaded, rate=0.5, keywords=["uniqueItems"])
    with pytest.raises(ParamsError, match="csv"):
        attach_negative(plan, loaded, rate=0.5, formats=("csv",))
    assert attach_negative(plan, loaded, rate=0) is None and plan.negative is None


def test_command_line(order: tuple, tmp_path: Path) -> None:
    out = tmp_path / "orders.ndjson"
    _plan, paths = generate(BENCH, 200, "ndjson", str(out), seed=4, invalid_rate=0.25)
    labels = (tmp_path / "orders.ndjson.labels.ndjson").read_bytes().splitlines()
    assert paths == [out] and len(labels) == 50
    split = tmp_path / "split.ndjson"
    _plan, paths = generate(
        BENCH,
        200,
        "ndjson",
        str(split),
        seed=4,
        invalid_rate=0.25,
        records_per_file=64,
        labels=str(tmp_path / "l.ndjson"),
    )
    assert b"".join(p.read_bytes() for p in paths) == out.read_bytes()
    assert (tmp_path / "l.ndjson").read_bytes().splitlines() == labels
    forked = tmp_path / "forked.ndjson"
    generate(BENCH, 200, "ndjson", str(forked), seed=4, invalid_rate=0.25, records_per_file=64, jobs=2)
    assert (tmp_path / "forked.ndjson.labels.ndjson").read_bytes().splitlines() == labels
    stream = io.BytesIO()
    with pytest.raises(ParamsError, match="--labels"):
        generate(BENCH, 5, "ndjson", "-", invalid_rate=0.5, stdout=stream)
    generate(
        BENCH, 5, "ndjson", "-", seed=4, invalid_rate=1, labels=str(tmp_path / "s.ndjson"), stdout=stream
    )
    assert len((tmp_path / "s.ndjson").read_bytes().splitlines()) == 5
    records = [orjson.loads(line) for line in stream.getvalue().splitlines()]
    assert len(records) == 5


@pytest.mark.parametrize(
    ("n", "rate", "k"), [(1000, 0.1, 100), (5, 0.5, 3), (7, 0.0, 0), (7, 1.0, 7), (3, 0.01, 0)]
)
def test_selection_is_exact(n: int, rate: float, k: int) -> None:
    assert invalid_count(n, rate) == k
    sel = Selection(n, rate, seed=99)
    rows = sel.rows(0, n)
    assert len(rows) == k
    halves = np.concatenate([sel.rows(0, n // 2), sel.rows(n // 2, n)])
    assert halves.tolist() == rows.tolist()


def test_instance_forcing() -> None:
    record = {"a": [{"b": 1}, {"b": 2}, {"c": 3}], "d": "x"}
    assert locations(record, ("a", None, "b")) == [("a", 0, "b"), ("a", 1, "b")]
    changed = put(record, ("a", 1, "b"), 9)
    assert changed["a"][1]["b"] == 9 and record["a"][1]["b"] == 2 and changed["a"][0] is record["a"][0]
    assert remove(record, ("d",)) == {"a": record["a"]}
    assert put(record, ("e",), None)["e"] is None


def test_fast_path_reads_the_negative_options(tmp_path: Path) -> None:
    from app.generation.cli import fast_arguments

    argv = [str(BENCH), "-n", "10", "-o", str(tmp_path / "o.json"), "--invalid-rate", "0.5"]
    args = fast_arguments([*argv, "--invalid-keywords", "required", "--labels", "l.ndjson"])
    assert args is not None
    assert (args["invalid_rate"], args["invalid_keywords"], args["labels"]) == (0.5, "required", "l.ndjson")
    assert fast_arguments([*argv[:-1], "1.5"]) is None  # typer words the refusal
    assert fast_arguments([*argv[:-1], "half"]) is None
