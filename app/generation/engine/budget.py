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
        gens = [*gen.prefix, *([gen.item] if gen.item is not None else [])]
        each = sum(expected_values(g, scale, memo) for g in gens) / max(1, len(gens))
        got = (gen.min_items + gen.max_items) / 2 * each
    elif isinstance(gen, ChoiceGen):
        live = [o for o in gen.options if o is not None]
        got = sum(expected_values(o, scale, memo) for o in live) / max(1, len(live))
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
            for slot in g.slots:
                if not slot.required and not slot.ruled:
                    slot.presence = slot.presence * scale
    return scale
