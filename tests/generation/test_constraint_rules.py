"""Constraint rules: accepted narrowings, and each conflict refused with its path in the detail."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.generation.errors import GenerationError
from app.generation.model import FieldTree
from app.generation.rules import Rule, parse_rules
from app.generation.schema.loader import load_schema
from tests.paths import BENCH


@pytest.fixture(scope="module")
def order_tree() -> FieldTree:
    return load_schema((BENCH / "customer_order.schema.json").read_bytes()).field_tree()


@pytest.fixture(scope="module")
def xsd_tree() -> FieldTree:
    return load_schema((BENCH / "customer_order.xsd").read_bytes()).field_tree()


@pytest.fixture(scope="module")
def misc_tree() -> FieldTree:
    doc = {"type": "object", "required": ["when", "at"], "properties": {
        "when": {"type": "string", "format": "date"},
        "at": {"type": "string", "format": "date-time"},
        "score": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 5}},
        "code": {"type": "string", "pattern": "^[A-Z]{2}$"},
    }}
    return load_schema(json.dumps(doc).encode()).field_tree()


def test_narrower_rules_are_accepted(order_tree: FieldTree) -> None:
    rules = parse_rules(order_tree, [
        {"path": "email", "category": "email", "unique": True},
        {"path": "first_name", "category": "first_name", "max_length": 20},
        {"path": "amount", "min": 10, "max": 99.5},
        {"path": "line_items.quantity", "min": 1, "max": 3},
        {"path": "status", "enum": ["paid", "shipped"]},
        {"path": "notes", "null_rate": 0.3},
        {"path": "referral_code", "null_rate": 1, "pattern": "^[A-Z]{8}$"},
        {"path": "uuid", "category": "uuid"},
    ])
    assert rules[0] == Rule(path="email", category="email", unique=True)
    assert rules[2].min == 10 and rules[2].max == 99.5
    assert [r.path for r in rules] == ["email", "first_name", "amount", "line_items.quantity", "status",
                                       "notes", "referral_code", "uuid"]


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"path": "id"}, None),
        ("not a list", "'rules' must be a list"),
        ([1], "Rule 0 must be an object"),
        ([{"category": "email"}], "Rule 0 must have a string 'path'"),
        ([{"path": "nope"}], "Rule for 'nope': no field has this path"),
        ([{"path": "id", "color": "red"}], "Rule for 'id': unknown key 'color'"),
        ([{"path": "id", "min": 5, "max": 1}], "Rule for 'id': min 5 is greater than max 1"),
        ([{"path": "amount", "min": 200000}], "Rule for 'amount': min 200000 is above the schema's maximum"),
        ([{"path": "line_items.quantity", "max": 0}], "below the schema's minimum 1"),
        ([{"path": "id", "min": "1"}], "Rule for 'id': 'min' must be an integer"),
        ([{"path": "id", "min": 1.5}], "'min' must be an integer"),
        ([{"path": "first_name", "min": 1}], "'min' does not apply to a string field"),
        ([{"path": "status", "enum": ["lost"]}], "Rule for 'status': enum value 'lost' is not one of"),
        ([{"path": "status", "enum": []}], "'enum' must be a non-empty list"),
        ([{"path": "first_name", "enum": [""]}], "shorter than the schema's minLength 1"),
        ([{"path": "address.postcode", "enum": ["1234"]}], "does not match the schema's pattern"),
        ([{"path": "line_items.quantity", "enum": [101]}], "outside the schema's range"),
        ([{"path": "id", "null_rate": 0.1}], "Rule for 'id': 'null_rate' on a required field"),
        ([{"path": "notes", "null_rate": 1.5}], "'null_rate' must be a number from 0 to 1"),
        ([{"path": "notes", "null_rate": True}], "'null_rate' must be a number"),
        ([{"path": "id", "category": "email"}], "category 'email' does not fit a field of type integer"),
        ([{"path": "email", "category": "horoscope"}], "unknown category 'horoscope'"),
        ([{"path": "phone", "pattern": "(unclosed"}], "Rule for 'phone': pattern does not compile"),
        ([{"path": "phone", "pattern": "^(a)\\1$"}], "Rule for 'phone': pattern cannot be generated"),
        ([{"path": "id", "pattern": "^1$"}], "'pattern' does not apply to a integer field"),
        # a rule that would be ignored or cannot hold is refused at the rule (issue 32 item 6)
        ([{"path": "status", "pattern": "^p"}], "Rule for 'status': 'pattern' would be ignored: the schema lists"),
        ([{"path": "first_name", "pattern": "^[A-Z]{50}$"}],
         "'pattern' cannot hold on this field: the pattern needs at least 50 characters but maxLength is 40"),
        ([{"path": "first_name", "pattern": "^[A-Z]{8}$", "max_length": 5}], "needs at least 8 characters"),
        ([{"path": "first_name", "pattern": "^[A-Z]{2}$", "min_length": 6}], "allows at most 2 characters"),
        ([{"path": "first_name", "max_length": 0}], "max_length 0 is below the schema's minLength 1"),
        ([{"path": "first_name", "min_length": 41}], "min_length 41 is above the schema's maxLength 40"),
        ([{"path": "first_name", "min_length": 5, "max_length": 2}], "min_length 5 is greater than max_length 2"),
        ([{"path": "first_name", "min_length": -1}], "'min_length' must be a non-negative integer"),
        ([{"path": "id", "max_length": 3}], "do not apply to a integer field"),
        ([{"path": "id", "unique": "yes"}], "'unique' must be true or false"),
        ([{"path": "id", "unique": True}, {"path": "id", "min": 2}], "more than one rule has this path"),
    ],
)
def test_conflicts_name_path_and_reason(order_tree: FieldTree, rules: Any, message: str | None) -> None:
    if message is None:
        assert parse_rules(order_tree, [rules]) == [Rule(path="id")]
        return
    with pytest.raises(GenerationError) as info:
        parse_rules(order_tree, rules)
    assert message in info.value.detail


def test_exclusive_bounds_and_temporal_rules(misc_tree: FieldTree) -> None:
    with pytest.raises(GenerationError, match="max 0 is below the schema's minimum 0 \\(exclusive\\)"):
        parse_rules(misc_tree, [{"path": "score", "max": 0}])
    assert parse_rules(misc_tree, [{"path": "score", "max": 0.5}])[0].max == 0.5
    rules = parse_rules(misc_tree, [{"path": "when", "min": "2020-01-01", "max": "2020-12-31"},
                                    {"path": "at", "min": "2020-01-01T00:00:00Z"}])
    assert rules[0].min == "2020-01-01"
    with pytest.raises(GenerationError, match="Rule for 'when': min 2021-01-01 is greater than max 2020-12-31"):
        parse_rules(misc_tree, [{"path": "when", "min": "2021-01-01", "max": "2020-12-31"}])
    with pytest.raises(GenerationError, match="'min' 'yesterday' is not an ISO date"):
        parse_rules(misc_tree, [{"path": "when", "min": "yesterday"}])
    with pytest.raises(GenerationError, match="'max' must be an ISO datetime string"):
        parse_rules(misc_tree, [{"path": "at", "max": 5}])


def test_array_rules_apply_to_items(misc_tree: FieldTree) -> None:
    assert parse_rules(misc_tree, [{"path": "tags", "category": "city", "max_length": 4}])[0].max_length == 4
    with pytest.raises(GenerationError, match="Rule for 'tags': min_length 6 is above the schema's maxLength 5"):
        parse_rules(misc_tree, [{"path": "tags", "min_length": 6}])


def test_enum_checked_against_pattern_anchoring(misc_tree: FieldTree) -> None:
    assert parse_rules(misc_tree, [{"path": "code", "enum": ["AB"]}])[0].enum == ["AB"]
    with pytest.raises(GenerationError, match="does not match the schema's pattern"):
        parse_rules(misc_tree, [{"path": "code", "enum": ["ABC"]}])


def test_xsd_tree_rules(xsd_tree: FieldTree) -> None:
    rules = parse_rules(xsd_tree, [{"path": "@id", "min": 10, "max": 20},
                                   {"path": "line_items.line_item.quantity", "enum": [1, 2, 3]},
                                   {"path": "notes", "null_rate": 0.2}])
    assert len(rules) == 3
    with pytest.raises(GenerationError, match="Rule for '@id': max 0 is below the schema's minimum 1"):
        parse_rules(xsd_tree, [{"path": "@id", "max": 0}])
    with pytest.raises(GenerationError, match="Rule for 'amount': enum value 0\\.001 has more than 2 fraction digits"):
        parse_rules(xsd_tree, [{"path": "amount", "enum": [1.5, 0.001]}])


def test_enum_respects_multiple_of(order_tree: FieldTree) -> None:
    assert parse_rules(order_tree, [{"path": "amount", "enum": [19.99, 5]}])[0].enum == [19.99, 5]
    with pytest.raises(GenerationError, match="Rule for 'amount': enum value 0\\.005 is not a multiple of 0\\.01"):
        parse_rules(order_tree, [{"path": "amount", "enum": [0.005]}])
