"""Distributions and edge cases per rule (issue 17, item 2): on 100,000 records, `uniform` is
uniform and `normal` normal by a Kolmogorov-Smirnov test, `lognormal` and `skewed` lean the way
they should, `edge_rate` 0.05 puts 5% +- 1% of values on the field's edges, and every value stays
inside the allowed range. Bad `distribution`/`edge_rate` rules are refused naming the path."""

from __future__ import annotations

import io
import json
import math
from collections import Counter
from typing import Any

import numpy as np
import orjson
import pytest

from app.generation.errors import RuleError
from app.generation.plan import compile_plan
from app.generation.rules import parse_rules
from app.generation.schema.loader import load_schema

N = 100_000
DRAFT = "https://json-schema.org/draft/2020-12/schema"
# the Kolmogorov-Smirnov critical value at alpha = 0.001 is 1.95 / sqrt(n): 0.0062 for 100,000
KS_LIMIT = 1.95 / math.sqrt(N)


def _schema(properties: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": DRAFT, "type": "object", "required": sorted(properties), "properties": properties}


def _records(schema: dict[str, Any], rules: list[dict[str, Any]], n: int = N, seed: int = 11) -> list[Any]:
    loaded = load_schema(json.dumps(schema).encode(), "s.json")
    plan = compile_plan(loaded, parse_rules(loaded.field_tree(), rules), {"seed": seed}, record_count=n)
    buf = io.BytesIO()
    plan.write("json", buf)
    records: list[Any] = orjson.loads(buf.getvalue())
    return records


def _ks(sample: np.ndarray, cdf: Any) -> float:
    """The Kolmogorov-Smirnov statistic of `sample` against the continuous `cdf`."""
    x = np.sort(sample)
    f = cdf(x)
    n = len(x)
    above = np.arange(1, n + 1) / n - f
    below = f - np.arange(0, n) / n
    return float(max(above.max(), below.max()))


_ERF = np.vectorize(math.erf)


def _normal_cdf(mean: float, sd: float) -> Any:
    return lambda x: 0.5 * (1 + _ERF((x - mean) / (sd * math.sqrt(2))))


NUMBERS = {
    "score": {"type": "number", "minimum": 0, "maximum": 1000},
    "height": {"type": "number", "minimum": 100, "maximum": 250},
    "salary": {"type": "number", "minimum": 10000, "maximum": 500000},
    "visits": {"type": "integer", "minimum": 1, "maximum": 100000},
    "plain": {"type": "integer", "minimum": 0, "maximum": 1000},
}


def test_uniform_and_normal_pass_kolmogorov_smirnov() -> None:
    rules = [
        {"path": "score", "distribution": "uniform"},
        {"path": "height", "distribution": "normal", "mean": 170, "sd": 10},
    ]
    records = _records(_schema(NUMBERS), rules)
    score = np.array([r["score"] for r in records], dtype=float)
    height = np.array([r["height"] for r in records], dtype=float)
    assert score.min() >= 0 and score.max() <= 1000
    assert height.min() >= 100 and height.max() <= 250
    assert _ks(score, lambda x: x / 1000) < KS_LIMIT
    assert _ks(height, _normal_cdf(170, 10)) < KS_LIMIT
    assert abs(height.mean() - 170) < 0.2 and abs(height.std() - 10) < 0.2
    # the test can fail: the normal column is far from uniform over its range, and vice versa
    assert _ks(height, lambda x: (x - 100) / 150) > 0.1
    assert _ks(score, _normal_cdf(500, 100)) > 0.1


def test_normal_is_truncated_inside_the_range_never_outside() -> None:
    # the mean sits near the minimum: a third of a plain normal would fall below it
    records = _records(
        _schema({"wait": {"type": "integer", "minimum": 0, "maximum": 60}}),
        [{"path": "wait", "min": 2, "distribution": "normal", "mean": 5, "sd": 8}],
        n=20_000,
    )
    waits = Counter(r["wait"] for r in records)
    assert min(waits) >= 2 and max(waits) <= 60
    assert waits[2] < 0.1 * len(records)  # drawn again, not piled onto the bound


def test_lognormal_and_skewed_lean_to_the_low_end() -> None:
    rules = [
        {"path": "salary", "distribution": "lognormal", "mean": 60000, "sd": 30000},
        {"path": "visits", "distribution": "skewed"},
        {"path": "plain", "distribution": "lognormal"},
    ]
    records = _records(_schema(NUMBERS), rules)
    salary = np.array([r["salary"] for r in records], dtype=float)
    assert salary.min() >= 10000 and salary.max() <= 500000
    assert np.median(salary) < salary.mean() < 80000  # right-skewed, mean near the asked one
    assert abs(salary.mean() - 60000) < 2000
    visits = np.array([r["visits"] for r in records])
    assert visits.min() >= 1 and visits.max() <= 100000
    counts = Counter(visits.tolist())
    # Zipf-like: the lowest value most often, about twice the second, and a long tail
    assert counts[1] > counts[2] > counts[5] > counts[50]
    assert 1.5 < counts[1] / counts[2] < 2.5
    assert (visits > 10000).mean() > 0.1
    plain = np.array([r["plain"] for r in records])
    assert np.median(plain) < 200 and plain.max() <= 1000


def test_skewed_enum_follows_listed_order() -> None:
    schema = _schema({"status": {"type": "string", "enum": ["new", "paid", "shipped", "lost"]}})
    records = _records(schema, [{"path": "status", "distribution": "skewed"}], n=40_000)
    counts = Counter(r["status"] for r in records)
    share = {k: v / len(records) for k, v in counts.items()}
    expected = np.array([1, 1 / 2, 1 / 3, 1 / 4]) / sum([1, 1 / 2, 1 / 3, 1 / 4])
    for name, p in zip(["new", "paid", "shipped", "lost"], expected, strict=True):
        assert abs(share[name] - p) < 0.01, (name, share)


def _share(values: list[Any], edges: set[Any]) -> float:
    return sum(v in edges for v in values) / len(values)


def test_edge_rate_puts_five_percent_on_the_edges() -> None:
    properties = {
        "amount": {"type": "number", "minimum": 0, "maximum": 1000000, "multipleOf": 0.01},
        "count": {"type": "integer", "minimum": -500000, "maximum": 500000},
        "day": {"type": "string", "format": "date"},
        "at": {"type": "string", "format": "date-time"},
        "opens": {"type": "string", "format": "time"},
        "code": {"type": "string", "minLength": 0, "maxLength": 40},
        "status": {"type": "string", "enum": ["a", "b", "c", "d", "e", "f", "g", "h"]},
    }
    rules = [
        {"path": "amount", "edge_rate": 0.05},
        {"path": "count", "edge_rate": 0.05},
        {"path": "day", "min": "1990-01-01", "max": "2030-12-31", "edge_rate": 0.05},
        {"path": "at", "min": "2020-01-01T00:00:00Z", "max": "2024-12-31T23:59:59Z", "edge_rate": 0.05},
        {"path": "opens", "min": "00:00:00Z", "max": "23:59:59Z", "edge_rate": 0.05},
        {"path": "code", "edge_rate": 0.05},
        {"path": "status", "edge_rate": 0.05},
    ]
    records = _records(_schema(properties), rules)
    edges = {
        "amount": {0, 0.01, 999999.99, 1000000},
        "count": {-500000, -499999, 499999, 500000},
        "day": {"1990-01-01", "1990-01-02", "2030-12-30", "2030-12-31", "1992-02-29"},
        "at": {
            "2020-01-01T00:00:00Z",
            "2020-01-01T00:00:01Z",
            "2024-12-31T23:59:58Z",
            "2024-12-31T23:59:59Z",
            "2020-02-29T12:00:00Z",
            "2020-01-01T23:59:59Z",
        },
        "opens": {"00:00:00Z", "00:00:01Z", "23:59:58Z", "23:59:59Z"},
    }
    for name, edge_set in edges.items():
        values = [r[name] for r in records]
        assert 0.04 <= _share(values, edge_set) <= 0.06, (name, _share(values, edge_set))
        assert set(values) >= edge_set, (name, edge_set - set(values))
    codes = [r["code"] for r in records]
    assert 0.04 <= sum(len(c) in (0, 40) for c in codes) / N <= 0.06
    assert "" in codes and max(map(len, codes)) == 40
    status = Counter(r["status"] for r in records)
    # first/last listed: 1/8 each by chance, plus the edge share
    assert 0.04 <= (status["a"] + status["h"]) / N - 2 / 8 * 0.95 <= 0.06


def test_no_edge_rate_leaves_the_edges_rare() -> None:
    records = _records(
        _schema({"count": {"type": "integer", "minimum": -500000, "maximum": 500000}}), [], n=20_000
    )
    assert _share([r["count"] for r in records], {-500000, -499999, 499999, 500000}) < 0.001


BAD_RULES = [
    ({"path": "height", "distribution": "normal", "mean": 170}, "needs both 'mean' and 'sd'"),
    ({"path": "height", "distribution": "normal", "sd": 3}, "needs both 'mean' and 'sd'"),
    (
        {"path": "height", "distribution": "normal", "mean": 170, "sd": 0},
        "'sd' must be a number greater than 0",
    ),
    ({"path": "height", "distribution": "normal", "mean": 900, "sd": 5}, "outside the allowed range"),
    (
        {"path": "height", "min": 150, "distribution": "normal", "mean": 120, "sd": 5},
        "outside the allowed range",
    ),
    ({"path": "height", "distribution": "gaussian"}, "'distribution' must be one of"),
    ({"path": "height", "mean": 3}, "need 'distribution' normal or lognormal"),
    ({"path": "height", "distribution": "skewed", "sd": 2}, "do not apply to distribution 'skewed'"),
    ({"path": "height", "edge_rate": 1.5}, "'edge_rate' must be a number from 0 to 1"),
    ({"path": "height", "edge_rate": -0.1}, "'edge_rate' must be a number from 0 to 1"),
    ({"path": "height", "edge_rate": "often"}, "'edge_rate' must be a number from 0 to 1"),
    ({"path": "name", "distribution": "skewed"}, "applies to integer and number fields and to enum values"),
    ({"path": "name", "distribution": "uniform"}, "does not apply to a string field without enum"),
    ({"path": "name", "distribution": "normal", "mean": 1, "sd": 1}, "applies to integer and number fields"),
    ({"path": "status", "distribution": "normal", "mean": 1, "sd": 1}, "without enum"),
    ({"path": "flag", "distribution": "skewed"}, "applies to integer and number fields"),
    ({"path": "visits", "distribution": "skewed", "unique": True}, "does not apply to a unique field"),
    ({"path": "tags", "edge_rate": 0.1}, None),  # accepted: an array rule applies to its items
    ({"path": "meta", "edge_rate": 0.1}, "'edge_rate' does not apply to a object field"),
]


@pytest.mark.parametrize(("rule", "message"), BAD_RULES)
def test_bad_distribution_rules_are_refused_with_their_path(
    rule: dict[str, Any], message: str | None
) -> None:
    schema = _schema(
        {
            **NUMBERS,
            "name": {"type": "string"},
            "status": {"type": "integer", "enum": [1, 2, 3]},
            "flag": {"type": "boolean"},
            "tags": {"type": "array", "items": {"type": "integer"}},
            "meta": {"type": "object", "properties": {"a": {"type": "string"}}},
        }
    )
    tree = load_schema(json.dumps(schema).encode(), "s.json").field_tree()
    if message is None:
        parse_rules(tree, [rule])
        return
    with pytest.raises(RuleError) as err:
        parse_rules(tree, [rule])
    assert f"Rule for '{rule['path']}'" in str(err.value) and message in str(err.value), str(err.value)


def test_good_distribution_rules_are_accepted() -> None:
    schema = _schema(
        {
            **NUMBERS,
            "status": {"type": "string", "enum": ["a", "b"]},
            "day": {"type": "string", "format": "date"},
        }
    )
    tree = load_schema(json.dumps(schema).encode(), "s.json").field_tree()
    rules = [
        {"path": "score", "distribution": "uniform", "edge_rate": 0},
        {"path": "height", "distribution": "normal", "mean": 170.5, "sd": 9.5, "edge_rate": 1},
        {"path": "salary", "distribution": "lognormal"},
        {"path": "visits", "distribution": "skewed"},
        {"path": "status", "distribution": "skewed", "edge_rate": 0.2},
        {"path": "day", "distribution": "uniform", "edge_rate": 0.01},
    ]
    assert [r.distribution for r in parse_rules(tree, rules)] == [
        "uniform",
        "normal",
        "lognormal",
        "skewed",
        "skewed",
        "uniform",
    ]
