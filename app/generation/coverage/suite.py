"""The negative suite (issue 31 item 4): `--invalid-rate 1 --coverage each` is one labelled invalid
record per breakable constraint of the schema (each (location, keyword) the negative engine offers,
app/generation/negative), in the order it offers them; a run longer than that starts over. Rates
between 0 and 1 with coverage stay refused (a coverage set is made of valid records)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.generation.errors import ParamsError
from app.generation.negative.engine import PROBE_RECORDS, attach_negative
from app.generation.params import GenerationParams
from app.generation.plan import Plan, compile_plan

_PASSES = 3


def compile_negative_suite(
    source: Any,
    rules: Sequence[Any],
    params: GenerationParams,
    *,
    record_count: int,
    keywords: Sequence[str] | None,
    formats: Sequence[str],
) -> Plan:
    """A Plan of max(record_count, suite size) records, every one invalid: record i breaks the
    i-th constraint offered (plan.negative.suite). The size is learnt from a first compile with a
    full probe; the plan of that size then offers at most as many (its probe is no larger)."""
    if getattr(source, "type", None) == "xsd":
        # the XSD breaker's spares do not always break their constraint again (ncml: record 26
        # broke none), so the suite would fail mid-run: refused until that is settled
        raise ParamsError(
            "The negative suite (coverage each with invalid_rate 1) is available for JSON Schemas "
            "only for now.",
            field="params.invalid_rate",
        )
    size = max(record_count, PROBE_RECORDS)
    plan = compile_plan(source, rules, params, record_count=size)
    for _ in range(_PASSES):
        negative = attach_negative(plan, source, rate=1, keywords=keywords, formats=formats, rules=rules)
        assert negative is not None
        negative.suite = True
        want = max(record_count, len(negative.offered))
        if want == plan.record_count:
            return plan
        plan = compile_plan(source, rules, params, record_count=want)
    negative = attach_negative(plan, source, rate=1, keywords=keywords, formats=formats, rules=rules)
    assert negative is not None
    negative.suite = True
    return plan
