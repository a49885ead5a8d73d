"""The record budget: the values a record is expected to hold, and array/presence bounds scaled
so that a record stays within RECORD_VALUE_BUDGET."""

from __future__ import annotations

import math

from app.generation.engine.arrays import ArrayGen
from app.generation.engine.choices import ChoiceGen
from app.generation.engine.generators import (
    Gen,
    distinct_generators,
)
from app.generation.engine.objects import ObjectGen

# expected scalar values in one record: above it, optional fields are present less often
RECORD_VALUE_BUDGET = 1_000
# the draws of an object with if/then/else conditions, counted this many times over (`draw_work`)
CONDITIONAL_REDRAW_COST = 4.0
# above this many draws per record (`draw_work`, about 10 s per 50 records) the compiler limits
# recursion one level shallower, and the upload probe is skipped with a note
MAX_DRAW_WORK = 200_000


def _item_gens(gen: ArrayGen) -> list[Gen]:
    return [*gen.prefix, *([gen.item] if gen.item is not None else [])]


def _mean_length(gen: ArrayGen) -> float:
    return (gen.min_items + gen.max_items) / 2


def _mean(values: list[float]) -> float:
    return sum(values) / max(1, len(values))


def expected_values(gen: Gen | None, scale: float = 1.0, memo: dict[int, float] | None = None) -> float:
    """The expected number of scalar values in one value of `gen` (optional fields counted at
    their presence times `scale`, arrays at their mean length, choices at their options' mean);
    generators shared between positions (recursion points) are counted at each position."""
    if gen is None:
        return 0.0
    memo = {} if memo is None else memo
    got = memo.get(id(gen))
    if got is not None:
        return got
    if isinstance(gen, ObjectGen):
        got = sum(
            (1.0 if s.required else s.presence if s.ruled else s.presence * scale)
            * expected_values(s.gen, scale, memo)
            for s in gen.slots
        )
    elif isinstance(gen, ArrayGen):
        got = _mean_length(gen) * _mean([expected_values(g, scale, memo) for g in _item_gens(gen)])
    elif isinstance(gen, ChoiceGen):
        got = _mean([expected_values(o, scale, memo) for o in gen.options if o is not None])
    else:
        got = 1.0
    memo[id(gen)] = got
    return got


def fit_record_budget(gen: Gen, budget: float = RECORD_VALUE_BUDGET) -> float:
    """Scale the presence of optional fields down (one factor for the whole tree, found by
    bisection) so an expected record holds at most `budget` scalar values; returns the factor.

    A schema with thousands of optional nested elements (CycloneDX: ~4,400 values, 190 KB of
    XML per record at the default presence) would otherwise give records no one writes by hand
    and cost the guard seconds each; ordinary schemas are far below the budget and unchanged.
    Presence set by a rule's null_rate is kept. The factor depends only on the compiled tree,
    so output stays reproducible."""
    if expected_values(gen) <= budget:
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(20):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if expected_values(gen, mid) <= budget else (lo, mid)
    scale = math.floor(lo * 10_000) / 10_000  # rounded down: the budget holds
    for g in distinct_generators(gen):
        if isinstance(g, ObjectGen):
            # most optional content of such a record is absent: draw it for its present rows only
            g.compact = True
            for slot in g.slots:
                if not slot.required and not slot.ruled:
                    slot.presence = slot.presence * scale
    return scale


def draw_work(gen: Gen | None, memo: dict[int, float] | None = None) -> float:
    """The generator draws one record costs before presence masks apply: an object draws every
    optional field for each of its rows and drops the absent ones afterwards, so a wide recursive
    schema (a JSON Schema meta-schema) draws far more than its records hold (`expected_values`).
    Generation time follows this figure."""
    if gen is None:
        return 0.0
    memo = {} if memo is None else memo
    got = memo.get(id(gen))
    if got is not None:
        return got
    if isinstance(gen, ObjectGen):
        got = 1.0 + sum(
            # a compact object draws optional objects, arrays and choices for present rows only
            (s.presence if gen.compact and not s.required and s.gen.sub_generators() else 1.0)
            * draw_work(s.gen, memo)
            for s in gen.slots
            if s.gen is not None
        )
        if gen.node.conditionals and not gen.conditionals_off:
            got *= CONDITIONAL_REDRAW_COST  # rows missing an if/then are re-drawn, nested ones too
    elif isinstance(gen, ArrayGen):
        got = 1.0 + _mean_length(gen) * _mean([draw_work(g, memo) for g in _item_gens(gen)])
    elif isinstance(gen, ChoiceGen):
        got = 1.0 + _mean([draw_work(o, memo) for o in gen.options if o is not None])
    else:
        got = 1.0
    memo[id(gen)] = got
    return got
