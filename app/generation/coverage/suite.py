"""The negative suite (issue 31 item 4): `--invalid-rate 1 --coverage each` is one labelled invalid
record per breakable constraint of the schema (each (location, keyword) the negative engine offers,
app/generation/negative), in the order it offers them; a run longer than that starts over. For an
XSD, only the constraints a probe record is judged (by xmlschema) to break alone are offered.
Rates between 0 and 1 with coverage stay refused (a coverage set is made of valid records)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.generation.errors import ParamsError
from app.generation.negative.engine import PROBE_RECORDS, Negative, attach_negative
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
    full probe; the plan of that size then offers at most as many (its probe is no larger). An
    XSD's suite: `_xsd_suite`."""
    if getattr(source, "type", None) == "xsd":
        return _xsd_suite(source, rules, params, record_count, keywords, formats)
    size = max(record_count, PROBE_RECORDS)
    plan = compile_plan(source, rules, params, record_count=size)
    for _ in range(_PASSES):
        negative = _attach(plan, source, rules, keywords, formats)
        want = max(record_count, len(negative.offered))
        if want == plan.record_count:
            return plan
        plan = compile_plan(source, rules, params, record_count=want)
    _attach(plan, source, rules, keywords, formats)
    return plan


def _attach(
    plan: Plan, source: Any, rules: Sequence[Any], keywords: Sequence[str] | None, formats: Sequence[str]
) -> Negative:
    negative = attach_negative(plan, source, rate=1, keywords=keywords, formats=formats, rules=rules)
    assert negative is not None
    negative.suite = True
    return negative


def _xsd_suite(
    source: Any,
    rules: Sequence[Any],
    params: GenerationParams,
    record_count: int,
    keywords: Sequence[str] | None,
    formats: Sequence[str],
) -> Plan:
    """The XSD breaker's probe only sees that a change exists: the suite is the constraints a
    probe record is judged to break alone (Negative.confirm_spares), learnt on the probe records
    of a plan of PROBE_RECORDS records whatever the run's size (a plan of another size draws other
    ones, and would offer another count: the size a 422 names would not be the size a run of it
    gets), and carried to the plan of the run's size with their judged breaks."""
    plan = compile_plan(source, rules, params, record_count=PROBE_RECORDS)
    first = _attach(plan, source, rules, keywords, formats)
    first.confirm_spares()
    missing = sorted(set(keywords or ()) - {c.keyword for c in first.offered})
    if missing:
        raise ParamsError(
            f"The schema has no breakable constraint for the keyword(s) {', '.join(missing)}.",
            field="params.invalid_keywords",
        )
    want = max(record_count, len(first.offered))
    if want != plan.record_count:
        plan = compile_plan(source, rules, params, record_count=want)
        negative = _attach(plan, source, rules, None, formats)
        negative.offered, negative.spares, negative.judged = first.offered, first.spares, first.judged
    return plan
