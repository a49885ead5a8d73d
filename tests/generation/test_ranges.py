"""Ranges are honoured whole (issue 17, item 1): on 100,000 records, a bounded number, integer,
date, date-time or time spans its whole allowed range (schema facets intersected with the rule),
name-based categories only shape values inside it, and unbounded fields fall in plausible
defaults per category."""

from __future__ import annotations

import io
import json
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

import jsonschema
import orjson
import pytest
import xmlschema

from app.generation.plan import compile_plan
from app.generation.rules import parse_rules
from app.generation.schema.loader import load_schema
from app.generation.values.category_values import REFERENCE_DAY

N = 100_000
DRAFT = "https://json-schema.org/draft/2020-12/schema"

BOUNDED: dict[str, Any] = {
    "salary": {"type": "number", "minimum": 30000, "maximum": 250000},
    "budget": {"type": "number", "minimum": 30000, "maximum": 250000},
    "headcount": {"type": "integer", "minimum": -80000, "maximum": 70000},
    "price": {"type": "number", "minimum": 100, "maximum": 90000, "multipleOf": 0.01},
    "age": {"type": "integer", "minimum": 0, "maximum": 120},
    "quantity": {"type": "integer", "minimum": 1, "maximum": 5000},
    "valid_on": {"type": "string", "format": "date"},
    "hire_date": {"type": "string", "format": "date"},
    "created_at": {"type": "string", "format": "date-time"},
    "opens": {"type": "string", "format": "time"},
    "birth_date": {"type": "string", "format": "date"},
}
UNBOUNDED: dict[str, Any] = {
    "unit_price": {"type": "number"},
    "age": {"type": "integer"},
    "quantity": {"type": "integer"},
    "updated_at": {"type": "string", "format": "date-time"},
    "birth_date": {"type": "string", "format": "date"},
}
# the allowed range of each bounded field (schema facets intersected with the rule)
RULES = [
    {"path": "salary", "min": 40000, "max": 180000},
    {"path": "hire_date", "min": "2005-01-01", "max": "2025-10-31"},
    {"path": "valid_on", "min": "1950-01-01", "max": "2049-12-31"},
    {"path": "created_at", "min": "2001-01-01T00:00:00Z", "max": "2023-12-31T23:59:59Z"},
    {"path": "opens", "min": "06:00:00Z", "max": "21:30:00Z"},
    {"path": "birth_date", "min": "1900-01-01", "max": "1999-12-31"},
]
RANGES: dict[str, tuple[Any, Any]] = {
    "salary": (40000, 180000),
    "budget": (30000, 250000),
    "headcount": (-80000, 70000),
    "price": (100, 90000),
    "age": (0, 120),
    "quantity": (1, 5000),
    "valid_on": (date(1950, 1, 1), date(2049, 12, 31)),
    "hire_date": (date(2005, 1, 1), date(2025, 10, 31)),
    "created_at": (
        datetime.fromisoformat("2001-01-01T00:00:00Z"),
        datetime.fromisoformat("2023-12-31T23:59:59Z"),
    ),
    "opens": (time(6), time(21, 30)),
    "birth_date": (date(1900, 1, 1), date(1999, 12, 31)),
}


def _schema(properties: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": DRAFT, "type": "object", "required": sorted(properties), "properties": properties}


def _records(schema: dict[str, Any], rules: list[dict[str, Any]], seed: int = 5) -> list[dict[str, Any]]:
    loaded = load_schema(json.dumps(schema).encode(), "s.json")
    parsed = parse_rules(loaded.field_tree(), rules)
    plan = compile_plan(loaded, parsed, {"seed": seed}, record_count=N)
    buf = io.BytesIO()
    plan.write("json", buf)
    records: list[dict[str, Any]] = orjson.loads(buf.getvalue())
    assert len(records) == N
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    for record in records[:: N // 2000]:
        errors = list(validator.iter_errors(record))
        assert not errors, (record, errors[0].message)
    return records


def _parse(name: str, value: Any) -> Any:
    lo = RANGES[name][0]
    if isinstance(lo, datetime):
        return datetime.fromisoformat(value)
    if isinstance(lo, date):
        return date.fromisoformat(value)
    if isinstance(lo, time):
        return time.fromisoformat(value.rstrip("Z"))
    return Decimal(str(value))


def _ordinal(value: Any) -> float:
    """Dates, date-times and times as numbers, so a range's width and 1% of it can be computed."""
    if isinstance(value, datetime):
        return value.timestamp()
    if isinstance(value, date):
        return float(value.toordinal())
    if isinstance(value, time):
        return float(value.hour * 3600 + value.minute * 60 + value.second)
    return float(value)


@pytest.fixture(scope="module")
def bounded() -> list[dict[str, Any]]:
    return _records(_schema(BOUNDED), RULES)


@pytest.fixture(scope="module")
def unbounded() -> list[dict[str, Any]]:
    return _records(_schema(UNBOUNDED), [])


@pytest.mark.parametrize("name", sorted(RANGES))
def test_bounded_fields_span_their_whole_range(bounded: list[dict[str, Any]], name: str) -> None:
    lo, hi = (_ordinal(v) for v in RANGES[name])
    values = [_ordinal(_parse(name, r[name])) for r in bounded]
    slack = (hi - lo) * 0.01
    assert lo <= min(values) <= lo + slack, (name, min(values), RANGES[name])
    assert hi - slack <= max(values) <= hi, (name, max(values), RANGES[name])
    # and spread over it, not piled at one end: each tenth of the range gets values
    tenths = {min(9, int((v - lo) / (hi - lo) * 10)) for v in values}
    assert tenths == set(range(10)), (name, sorted(tenths))


def test_categories_shape_values_inside_the_whole_range(bounded: list[dict[str, Any]]) -> None:
    # a price keeps its cents and an age stays a whole number, over the whole range
    prices = [Decimal(str(r["price"])) for r in bounded]
    assert all(p == p.quantize(Decimal("0.01")) for p in prices)
    assert sum(p != p.to_integral_value() for p in prices) > N // 2
    assert min(prices) < 1000 and max(prices) > 89000
    ages = [r["age"] for r in bounded]
    assert all(isinstance(a, int) for a in ages) and (min(ages), max(ages)) == (0, 120)


def test_a_bounded_xsd_decimal_and_date_span_their_whole_range() -> None:
    xsd = """<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
      <xs:element name="employees"><xs:complexType><xs:sequence>
        <xs:element name="employee" maxOccurs="unbounded"><xs:complexType><xs:sequence>
          <xs:element name="salary"><xs:simpleType><xs:restriction base="xs:decimal">
            <xs:minInclusive value="30000"/><xs:maxInclusive value="250000"/>
            <xs:fractionDigits value="2"/></xs:restriction></xs:simpleType></xs:element>
          <xs:element name="hire_date"><xs:simpleType><xs:restriction base="xs:date">
            <xs:minInclusive value="2005-01-01"/><xs:maxInclusive value="2025-10-31"/>
          </xs:restriction></xs:simpleType></xs:element>
        </xs:sequence></xs:complexType></xs:element>
      </xs:sequence></xs:complexType></xs:element></xs:schema>"""
    loaded = load_schema(xsd.encode(), "e.xsd")
    plan = compile_plan(loaded, [], {"seed": 9, "root": "employees/employee"}, record_count=N)
    buf = io.BytesIO()
    plan.write("xml", buf)
    body = buf.getvalue().decode()
    rows = body.splitlines()[2:-1]
    assert len(rows) == N
    xmlschema.XMLSchema10(xsd).validate("<employees>" + "".join(rows[:2000]) + "</employees>")
    salaries = [Decimal(row.split("<salary>")[1].split("<")[0]) for row in rows]
    hires = [date.fromisoformat(row.split("<hire_date>")[1].split("<")[0]) for row in rows]
    assert Decimal(30000) <= min(salaries) <= Decimal(32200) and Decimal(247800) <= max(salaries) <= 250000
    span = (date(2025, 10, 31) - date(2005, 1, 1)).days
    assert (min(hires) - date(2005, 1, 1)).days <= span // 100
    assert (date(2025, 10, 31) - max(hires)).days <= span // 100


def test_unbounded_fields_get_plausible_defaults(unbounded: list[dict[str, Any]]) -> None:
    ref = date.fromisoformat(REFERENCE_DAY)
    prices = [Decimal(str(r["unit_price"])) for r in unbounded]
    assert Decimal("0.5") <= min(prices) and max(prices) <= 2000
    assert all(p == p.quantize(Decimal("0.01")) for p in prices)
    assert {min(r["age"] for r in unbounded), max(r["age"] for r in unbounded)} == {18, 90}
    assert {min(r["quantity"] for r in unbounded), max(r["quantity"] for r in unbounded)} == {1, 100}
    # timestamps in the last five years before the reference day
    stamps = [datetime.fromisoformat(r["updated_at"]).date() for r in unbounded]
    assert ref.replace(year=ref.year - 5) <= min(stamps) and max(stamps) <= ref
    assert (max(stamps) - min(stamps)).days > 5 * 365 - 30
    # birth dates of people aged 18 to 90 on the reference day
    births = [date.fromisoformat(r["birth_date"]) for r in unbounded]
    ages = [ref.year - b.year - ((ref.month, ref.day) < (b.month, b.day)) for b in births]
    assert min(ages) == 18 and max(ages) == 90


def test_a_half_bounded_salary_is_not_a_narrow_band_above_its_minimum() -> None:
    schema = _schema({"salary": {"type": "number", "minimum": 30000}})
    values = [r["salary"] for r in _records(schema, [])]
    assert min(values) >= 30000 and max(values) - min(values) > 20000
