"""Issue 17's measures on the bench schemas themselves (the other tests use schemas written for
each case): on 100,000 records of customer_order.schema.json and customer_order.xsd, every
bounded number's smallest and largest value lie within 1% of the range's ends, the e-mails and
ids are as many distinct values as records, and each e-mail is made from the record's name."""

from __future__ import annotations

import io
import unicodedata
from typing import Any

import orjson
import pytest

from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from tests.paths import REPO

N = 100_000
BENCH = REPO / "tests" / "fixtures" / "bench"
# (schema file, params, where the line items sit, the id's key)
CASES = {
    "json": ("customer_order.schema.json", {}, lambda r: r["line_items"], "id"),
    "xsd": (
        "customer_order.xsd",
        {"root": "customer_orders/customer_order"},
        lambda r: r["line_items"]["line_item"],
        "@id",
    ),
}
# the bench's bounded numbers: both schemas state the same ranges
RANGES = {"amount": (0, 100_000), "quantity": (1, 100), "unit_price": (0.01, 10_000)}


@pytest.fixture(scope="module", params=sorted(CASES))
def bench(request: pytest.FixtureRequest) -> tuple[str, list[dict[str, Any]]]:
    name, params, _, _ = CASES[request.param]
    loaded = load_schema((BENCH / name).read_bytes(), name)
    plan = compile_plan(loaded, [], {"seed": 17, **params}, record_count=N)
    buf = io.BytesIO()
    plan.write("json", buf)
    records: list[dict[str, Any]] = orjson.loads(buf.getvalue())
    assert len(records) == N
    return request.param, records


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def test_bounded_numbers_reach_both_ends(bench: tuple[str, list[dict[str, Any]]]) -> None:
    case, records = bench
    items = CASES[case][2]
    values = {
        "amount": [float(r["amount"]) for r in records],
        "quantity": [float(i["quantity"]) for r in records for i in items(r)],
        "unit_price": [float(i["unit_price"]) for r in records for i in items(r)],
    }
    for name, (lo, hi) in RANGES.items():
        slack = (hi - lo) * 0.01
        seen = values[name]
        assert lo <= min(seen) <= lo + slack and hi - slack <= max(seen) <= hi, (
            case,
            name,
            min(seen),
            max(seen),
        )


def test_ids_are_distinct_and_emails_follow_the_name(bench: tuple[str, list[dict[str, Any]]]) -> None:
    case, records = bench
    assert len({r[CASES[case][3]] for r in records}) == N
    assert len({r["uuid" if case == "json" else "@uuid"] for r in records}) == N
    named = sum(_ascii(r["last_name"])[:3] in _ascii(r["email"].split("@")[0]) for r in records)
    assert named / N > 0.95, named


def test_emails_are_distinct(bench: tuple[str, list[dict[str, Any]]]) -> None:
    # the XSD's EmailType has an xs:pattern: its default uniqueness comes from suffixed addresses
    # that still match it (values/strings.py), not from enumerating the pattern
    _case, records = bench
    assert len({r["email"] for r in records}) == N
