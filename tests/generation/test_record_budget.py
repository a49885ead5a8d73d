"""The record budget (compiler.RECORD_VALUE_BUDGET): a schema with thousands of optional nested
fields gets its optional presence scaled down so a record holds about the budget's values;
ordinary schemas, required fields and presence set by a rule are untouched."""

from __future__ import annotations

import io
import json
from typing import Any

from app.generation.engine.budget import (
    RECORD_VALUE_BUDGET,
    SCALE_BITS,
    _largest_fitting_scale,
    expected_values,
)
from app.generation.engine.generators import OPTIONAL_PRESENCE
from app.generation.engine.objects import ObjectGen
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from tests.generation.corpus import manifest, schema_bytes


def _wide(levels: int, width: int) -> dict[str, Any]:
    """`width` optional properties per level, `levels` deep, one required string per object."""
    node: dict[str, Any] = {"type": "string", "maxLength": 12}
    for _ in range(levels):
        props = {f"f{i}": node for i in range(width)}
        props["must"] = {"type": "string", "maxLength": 8}
        node = {"type": "object", "properties": props, "required": ["must"], "additionalProperties": False}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **node}


def _values(v: Any) -> int:
    if isinstance(v, dict):
        return sum(_values(x) for x in v.values())
    if isinstance(v, list):
        return sum(_values(x) for x in v)
    return 1


def _plan(schema: dict[str, Any], rules: list[dict[str, Any]] | None = None, n: int = 300) -> Any:
    loaded = load_schema(json.dumps(schema).encode(), "s.json")
    return compile_plan(loaded, rules or [], {"seed": 3}, record_count=n)


def test_small_schema_keeps_default_presence() -> None:
    plan = _plan(_wide(2, 5))
    assert expected_values(plan.gen) < RECORD_VALUE_BUDGET
    assert all(s.presence == OPTIONAL_PRESENCE for s in plan.gen.slots if not s.required)


def test_wide_schema_is_scaled_to_the_budget() -> None:
    schema = _wide(3, 16)  # ~0.8^3 * 16^3 = 2,100 values per record at the default presence
    plan = _plan(schema)
    assert expected_values(plan.gen) <= RECORD_VALUE_BUDGET
    records = plan.records()  # every record is checked by the guard when written below
    mean = sum(_values(r) for r in records) / len(records)
    assert 0.7 * RECORD_VALUE_BUDGET < mean < 1.3 * RECORD_VALUE_BUDGET
    assert all("must" in r for r in records)  # required fields stay
    plan.write("json", io.BytesIO())  # the guard validates every record


def test_rule_presence_is_kept() -> None:
    plan = _plan(_wide(3, 16), rules=[{"path": "f0", "null_rate": 0.5}])
    root = plan.gen
    assert isinstance(root, ObjectGen)
    f0 = next(s for s in root.slots if s.name == "f0")
    f1 = next(s for s in root.slots if s.name == "f1")
    assert f0.ruled and f0.presence == 0.5
    assert f1.presence < OPTIONAL_PRESENCE


def _bisected(gen: Any, budget: float) -> float:
    """The factor the budget search must find: twenty halvings of [0, 1] on expected_values."""
    lo, hi = 0.0, 1.0
    for _ in range(SCALE_BITS):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if expected_values(gen, mid) <= budget else (lo, mid)
    return lo


def test_budget_search_finds_what_bisection_finds() -> None:
    # searched at budgets across each tree's range, the arrays and choices of a real schema
    # (CycloneDX 1.6, 12,000 generators) included
    entry = next(e for e in manifest() if e["id"] == "cyclonedx-bom-1.6-xsd")
    cyclonedx = compile_plan(load_schema(*schema_bytes(entry)), [], {"seed": 1}, record_count=5).gen
    for gen in (_plan(_wide(3, 16)).gen, _plan(_wide(4, 6)).gen, cyclonedx):
        full = expected_values(gen)
        for budget in (0.5, 3, full / 7, full * 0.999999):
            assert _largest_fitting_scale(gen, budget) == _bisected(gen, budget), (budget, full)
