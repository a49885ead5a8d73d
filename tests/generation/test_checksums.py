"""Checksummed identifiers are real (issue 32, item 3): every IBAN, card number, ISBN, EAN,
UPC-A and BIC the engine draws passes an independent checker (python-stdnum, not our own check
code), both drawn straight through the category and through a JSON Schema field whose name infers
the category; an IBAN carries the locale's country where that country uses IBAN."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from stdnum import bic, ean, iban, isbn, luhn

from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from app.generation.values.category_values import STRING_GENERATORS, CategoryContext
from app.generation.values.checksums import IBAN_COUNTRIES
from tests.generation.validated import DRAFT, validated_records

N = 10_000
# issuer prefixes of 16-digit Visa, Mastercard (51-55, 2221-2720), Discover and JCB numbers
CARD_BRAND = re.compile(
    r"^(4\d{15}|5[1-5]\d{14}|(222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720)\d{12}|"
    r"(6011|64[4-9]\d|65\d\d)\d{12}|(352[89]|35[3-8]\d)\d{12})$"
)


def _card_ok(v: str) -> bool:
    return luhn.is_valid(v) and CARD_BRAND.match(v) is not None


def _isbn_ok(v: str) -> bool:
    return len(v) == 13 and isbn.is_valid(v)


def _ean_ok(v: str) -> bool:
    return len(v) == 13 and ean.is_valid(v)


def _upc_ok(v: str) -> bool:
    return len(v) == 12 and ean.is_valid(v)  # a UPC-A is a GTIN-12


CHECKS: dict[str, Callable[[str], bool]] = {
    "iban": iban.is_valid,  # mod 97, the country's length and BBAN shape, national check digits
    "credit_card_number": _card_ok,
    "isbn": _isbn_ok,
    "ean13": _ean_ok,
    "upc": _upc_ok,
    "swift": bic.is_valid,
}
# a JSON Schema field the category is inferred from, for each category
FIELDS = {
    "iban": "iban",
    "credit_card_number": "card_number",
    "isbn": "isbn",
    "ean13": "ean",
    "upc": "upc",
    "swift": "swift_code",
}


def _drawn(category: str, locale: str, seed: int = 7) -> list[str]:
    rng = np.random.default_rng(seed)
    ctx = CategoryContext(rng, locale, lambda _g, size: rng.integers(0, size, size=N))
    return STRING_GENERATORS[category](ctx, N)


def _failures(values: list[str], check: Callable[[str], bool]) -> list[str]:
    return [v for v in values if not check(v)]


@pytest.mark.parametrize("locale", ["en_US", "de_DE", "es_ES", "fr_FR", "no_NO", "nl_BE", "ja_JP"])
@pytest.mark.parametrize("category", sorted(CHECKS))
def test_category_draws_pass_the_independent_check(category: str, locale: str) -> None:
    values = _drawn(category, locale)
    assert len(values) == N
    assert not _failures(values, CHECKS[category])[:5]
    assert len(set(values)) > 0.99 * N  # drawn, not taken from a small pool


@pytest.mark.parametrize("category", sorted(FIELDS))
def test_inferred_schema_fields_pass_the_independent_check(category: str) -> None:
    field = FIELDS[category]
    records = validated_records(
        {"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}, n=N
    )
    values = [r[field] for r in records]
    assert len(values) == N
    assert not _failures(values, CHECKS[category])[:5]


def _records(schema: dict[str, Any], params: dict[str, Any], n: int) -> list[dict[str, Any]]:
    loaded = load_schema(json.dumps({"$schema": DRAFT, **schema}).encode(), "s.json")
    plan = compile_plan(loaded, [], params, record_count=n, use_schema_validator=False)
    records: list[dict[str, Any]] = json.loads(json.dumps(plan.records()))
    return records


ACCOUNT = {
    "type": "object",
    "properties": {"iban": {"type": "string"}, "bic": {"type": "string"}},
    "required": ["iban", "bic"],
}


@pytest.mark.parametrize(
    ("locale", "country"), [("de_DE", "DE"), ("es_ES", "ES"), ("no_NO", "NO"), ("it_IT", "IT")]
)
def test_iban_and_bic_carry_the_locale_country(locale: str, country: str) -> None:
    records = _records(ACCOUNT, {"seed": 4, "locale": locale}, 2000)
    assert all(iban.is_valid(r["iban"]) and r["iban"][:2] == country for r in records)
    assert all(bic.is_valid(r["bic"]) and r["bic"][4:6] == country for r in records)


def test_iban_outside_iban_countries_spreads_over_them() -> None:
    countries = Counter(v[:2] for v in _drawn("iban", "en_US"))
    assert set(countries) == set(IBAN_COUNTRIES)
    assert min(countries.values()) > N / len(IBAN_COUNTRIES) / 2


def test_card_brands_spread() -> None:
    first = Counter(v[0] for v in _drawn("credit_card_number", "en_US"))
    assert {"2", "3", "4", "5", "6"} <= set(first)


def test_same_seed_same_identifiers() -> None:
    schema = {
        "type": "object",
        "properties": {f: {"type": "string"} for f in FIELDS.values()},
        "required": list(FIELDS.values()),
    }
    assert _records(schema, {"seed": 11}, 500) == _records(schema, {"seed": 11}, 500)
    assert _records(schema, {"seed": 11}, 500) != _records(schema, {"seed": 12}, 500)


def test_iban_and_bic_follow_each_record_locale() -> None:
    """With several locales each record belongs to one country: its IBAN (where that country uses
    IBAN) and its BIC name the record's country."""
    schema = {
        "type": "object",
        "properties": {"country_code": {"type": "string"}, **ACCOUNT["properties"]},
        "required": ["country_code", "iban", "bic"],
    }
    records = _records(schema, {"seed": 1, "locales": ["de_DE", "fr_FR", "es_ES", "en_US"]}, 2000)
    assert {r["country_code"] for r in records} == {"DE", "FR", "ES", "US"}
    for r in records:
        assert iban.is_valid(r["iban"]) and bic.is_valid(r["bic"])
        assert r["bic"][4:6] == r["country_code"]
        assert r["iban"][:2] == r["country_code"] or r["country_code"] == "US"
