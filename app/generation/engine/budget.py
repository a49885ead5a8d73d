"""The record budget: the values a record is expected to hold, and array/presence bounds scaled
so that a record stays within RECORD_VALUE_BUDGET."""

from __future__ import annotations

import math

import numpy as np

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
    total = 0.0
    for v in values:
        total = total + v
    return total / max(1, len(values))


def expected_values(gen: Gen | None, scale: float = 1.0, memo: dict[int, float] | None = None) -> float:
    """The expected number of scalar values in one value of `gen` (optional fields counted at
    their presence times `scale`, arrays at their mean length, choices at their options' mean);
    generators shared between positions (recursion points) are counted at each position."""
    if gen is None:
        return 0.0
    memo = {} if memo is None else memo
    known = memo.get(id(gen))
    if known is not None:
        return known
    got: float
    # summed term by term like `_expected_at` (not with sum(), which compensates from Python 3.12), so both give the same floats
    if isinstance(gen, ObjectGen):
        got = 0.0
        for s in gen.slots:
            weight = 1.0 if s.required else s.presence if s.ruled else s.presence * scale
            got = got + weight * expected_values(s.gen, scale, memo)
    elif isinstance(gen, ArrayGen):
        got = _mean_length(gen) * _mean([expected_values(g, scale, memo) for g in _item_gens(gen)])
    elif isinstance(gen, ChoiceGen):
        got = _mean([expected_values(o, scale, memo) for o in gen.options if o is not None])
    else:
        got = 1.0
    memo[id(gen)] = got
    return got


def fit_record_budget(gen: Gen, budget: float = RECORD_VALUE_BUDGET) -> float:
    """Scale the presence of optional fields down (one factor for the whole tree) so an expected
    record holds at most `budget` scalar values; returns the factor.

    A schema with thousands of optional nested elements (CycloneDX: ~4,400 values, 190 KB of
    XML per record at the default presence) would otherwise give records no one writes by hand
    and cost the guard seconds each; ordinary schemas are far below the budget and unchanged.
    Presence set by a rule's null_rate is kept. The factor depends only on the compiled tree,
    so output stays reproducible."""
    if expected_values(gen) <= budget:
        return 1.0
    lo = _largest_fitting_scale(gen, budget)
    scale = math.floor(lo * 10_000) / 10_000  # rounded down: the budget holds
    for g in distinct_generators(gen):
        if isinstance(g, ObjectGen):
            # most optional content of such a record is absent: draw it for its present rows only
            g.compact = True
            for slot in g.slots:
                if not slot.required and not slot.ruled:
                    slot.presence = slot.presence * scale
    return scale


# the scale is searched to 2**-SCALE_BITS, in walks of the tree at 2**bits scales each
SCALE_BITS = 20
_SCALE_UNITS = float(1 << SCALE_BITS)
_SEARCH_BITS = (7, 7, 6)


def _largest_fitting_scale(gen: Gen, budget: float) -> float:
    """The largest k / 2**SCALE_BITS below 1 at which an expected record fits `budget` (0 when
    none does): what bisecting [0, 1] SCALE_BITS times finds, since `expected_values` only grows
    with the scale (sums and products of non-negative floats, each rounded monotonically). Each
    walk evaluates the tree at 2**bits scales at once (numpy, element by element the same float
    operations as `expected_values`), so three walks do the work of twenty; a schema like UBL
    2.1 Invoice has 60,000 generators."""
    shared = _shared_ids(gen)
    base = 0  # in units of 2**-SCALE_BITS: the largest scale known to fit (0 is not checked)
    left = SCALE_BITS
    for bits in _SEARCH_BITS:
        left -= bits
        steps = np.arange(1, 2**bits, dtype=np.int64)
        scales = (base + (steps << left)).astype(np.float64) / _SCALE_UNITS  # exact dyadic values
        expected = np.broadcast_to(_expected_at(gen, scales, shared, {}), scales.shape)
        base += int(np.count_nonzero(expected <= budget)) << left  # True up to a point, then False
    return base / _SCALE_UNITS


def _expected_at(
    gen: Gen | None, scales: np.ndarray, shared: set[int], memo: dict[int, np.ndarray | float]
) -> np.ndarray | float:
    """`expected_values(gen, scale)` for every scale of `scales` at once, summed in the same
    order; memoised for generators reached from more than one place (`shared`) only, which keeps
    the memory of a wide tree to the arrays on the current path."""
    if gen is None:
        return 0.0
    got = memo.get(id(gen))
    if got is not None:
        return got
    value: np.ndarray | float
    if isinstance(gen, ObjectGen):
        value = 0.0
        for s in gen.slots:
            weight = 1.0 if s.required else s.presence if s.ruled else s.presence * scales
            value = value + weight * _expected_at(s.gen, scales, shared, memo)
    elif isinstance(gen, ArrayGen):
        value = _mean_length(gen) * _mean_at([_expected_at(g, scales, shared, memo) for g in _item_gens(gen)])
    elif isinstance(gen, ChoiceGen):
        value = _mean_at([_expected_at(o, scales, shared, memo) for o in gen.options if o is not None])
    else:
        value = 1.0
    if id(gen) in shared:
        memo[id(gen)] = value
    return value


def _mean_at(values: list[np.ndarray | float]) -> np.ndarray | float:
    total: np.ndarray | float = 0.0
    for v in values:
        total = total + v
    return total / max(1, len(values))


def _shared_ids(gen: Gen) -> set[int]:
    """Generators reached from more than one parent (recursion points shared between positions)."""
    seen: set[int] = set()
    shared: set[int] = set()
    stack: list[Gen | None] = [gen]
    while stack:
        g = stack.pop()
        if g is None:
            continue
        if id(g) in seen:
            shared.add(id(g))
            continue
        seen.add(id(g))
        stack.extend(g.sub_generators())
    return shared


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
