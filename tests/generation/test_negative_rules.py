"""Negative records and constraint-set rules (issue 30): a rule's range, lengths, pattern, values,
zero null rate and uniqueness are breakable constraints labelled with the rule's index, and a
broken schema constraint never breaks a rule too. Every record is checked with jsonschema (format
checking on) and with the rule check of negative_checks.py, written apart from the engine's."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from app.generation.errors import ParamsError
from app.generation.schema.files import load_schema_path
from tests.generation.negative_checks import check_rule_labels, json_validator, negative_json

BENCH = Path(__file__).resolve().parents[1] / "fixtures" / "bench" / "customer_order.schema.json"
RULES = [
    {"path": "amount", "min": 10, "max": 5000},
    {"path": "status", "enum": ["paid", "shipped"]},
    {"path": "notes", "null_rate": 0},
    {"path": "uuid", "unique": True},
    {"path": "last_name", "min_length": 3, "max_length": 12},
    {"path": "line_items.quantity", "min": 2, "max": 9},
    {"path": "birth_date", "min": "1960-01-01", "max": "2000-12-31"},
    {"path": "address.postcode", "pattern": "[1-4][0-9]{4}"},
    {"path": "created_at", "min": "2021-01-01T00:00:00Z"},
]
RULE_KEYS = {"min", "max", "min_length", "max_length", "pattern", "enum", "null_rate", "unique"}


@pytest.fixture(scope="module")
def order() -> tuple[object, dict]:
    return load_schema_path(BENCH), json.loads(BENCH.read_bytes())


def test_every_rule_key_is_broken_alone(order: tuple) -> None:
    loaded, schema = order
    records, labels, _ = negative_json(
        loaded, 400, 1.0, seed=2, fmt="ndjson", rules=RULES, keywords=sorted(RULE_KEYS)
    )
    assert len(labels) == 400
    check_rule_labels(json_validator(schema), records, labels, RULES)
    seen = Counter(
        (x["rule"], x["keyword"]) for x in labels if x["rule"] is not None
    )  # schema pattern, enum too
    expected = {(i, k) for i, rule in enumerate(RULES) for k in rule if k in RULE_KEYS}
    assert set(seen) == expected, expected - set(seen)
    for x in labels:
        if x["rule"] is not None:
            assert x["schema_pointer"].startswith("/properties/")
            assert RULES[x["rule"]][x["keyword"]] is not None


def test_mixed_run_with_rules(order: tuple) -> None:
    loaded, schema = order
    records, labels, _ = negative_json(loaded, 1000, 0.1, seed=4, fmt="json", rules=RULES)
    assert len(records) == 1000 and len(labels) == 100
    check_rule_labels(json_validator(schema), records, labels, RULES)
    assert any(x["rule"] is not None for x in labels) and any(x["rule"] is None for x in labels)


def test_schema_breaks_keep_the_rules(order: tuple) -> None:
    """A rule naming every enum field's values leaves no schema enum break that keeps it (an
    'enum' break's value is outside the rule's values too): the enum labels are the rules'."""
    loaded, schema = order
    rules = [
        {"path": "status", "enum": ["paid", "shipped"]},
        {"path": "address.country", "enum": ["DE", "FR"]},
    ]
    records, labels, _ = negative_json(loaded, 200, 1.0, seed=3, fmt="ndjson", rules=rules, keywords=["enum"])
    assert {x["rule"] for x in labels} == {0, 1}
    check_rule_labels(json_validator(schema), records, labels, rules)
    # every other kind of schema break keeps them as well
    records, labels, _ = negative_json(
        loaded,
        300,
        1.0,
        seed=3,
        fmt="ndjson",
        rules=RULES,
        keywords=["type", "pattern", "maxLength", "minLength", "format", "maxItems", "minimum", "maximum"],
    )
    assert sum(x["rule"] is None for x in labels) > 200
    check_rule_labels(json_validator(schema), records, labels, RULES)


def test_unique_needs_a_unique_rule(order: tuple) -> None:
    loaded, _ = order
    with pytest.raises(ParamsError, match="unique"):
        negative_json(loaded, 50, 1.0, rules=[{"path": "uuid", "unique": False}], keywords=["unique"])
