"""Edge cases of a scalar field (a rule's `edge_rate`): the values QA wants to see at the limits.

Numbers: min, min + step, max - step, max; dates and times: the range's ends and their
neighbours, a leap day, 23:59:59; strings: the empty string where the facets allow it and values
at the minimum and maximum length; enums: the first and last listed value; booleans: both.
The edge set depends on the field, the seed and the locale only, so every block and shard of a
dataset draws from the same set. Design notes: docs/generation.md."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from app.generation.errors import GenerationError
from app.generation.model import LeafContext
from app.generation.values.distributions import EDGE_SALT, edge_rows, with_edges
from app.generation.values.strings import StringGenerator

if TYPE_CHECKING:
    from app.generation.engine.generators import LeafGen

Edges = tuple[list[Any], list[str]]
_SAMPLE = 256


def leaf_edges(gen: LeafGen, bc: Any) -> Edges | None:
    """The field's edge values (JSON-ready values and their text), or None when it has none."""
    if gen.choices is not None:
        texts = gen.choice_text or [str(v) for v in gen.choices]
        first, last = 0, len(gen.choices) - 1
        return [gen.choices[first], gen.choices[last]], [texts[first], texts[last]]
    if gen.boolean:
        return [False, True], ["false", "true"]
    vg = gen.values_gen
    if isinstance(vg, StringGenerator):
        values = _string_edges(gen, vg, bc)
        return (values, values) if values else None
    if vg is None or not hasattr(vg, "edge_values"):
        return None
    lv = vg.edge_values()
    if not lv.values:
        return None
    return list(lv.values), list(lv.text) if lv.text is not None else [str(v) for v in lv.values]


def _string_edges(gen: LeafGen, sg: StringGenerator, bc: Any) -> list[str]:
    from app.generation.engine.blocks import Shared

    rng = bc.rng(gen.key ^ EDGE_SALT ^ 1)
    ctx = LeafContext(
        rng, bc.locale, np.arange(_SAMPLE), _SAMPLE, Shared(bc, gen.key, _SAMPLE), bc.seed, gen.key
    )
    try:
        drawn = [v for v in sg.generate(ctx, _SAMPLE).values if isinstance(v, str)]
    except GenerationError:
        return []
    out: list[str] = []
    if len(sg.ok([""])) and sg.ok([""]).all():
        out.append("")
    if drawn:
        out.append(_stretched(sg, min(drawn, key=len), sg.lo))
        if sg.hi is not None:
            out.append(_stretched(sg, max(drawn, key=len), sg.hi))
        else:
            out.append(max(drawn, key=len))
    return list(dict.fromkeys(out))


def _stretched(sg: StringGenerator, value: str, length: int) -> str:
    """`value` repeated or cut to `length` characters when the facets accept that, else itself."""
    if not value or len(value) == length:
        return value
    candidate = (value * math.ceil(length / len(value)))[:length]
    return candidate if sg.ok([candidate]).all() else value


def apply_edges(
    gen: LeafGen, bc: Any, n: int, values: list[Any], text: list[str] | None
) -> tuple[list[Any], list[str] | None]:
    """Replace a share `edge_rate` of the rows with edge values (on a stream of their own)."""
    assert gen.spec is not None
    from app.generation.engine.blocks import BlockContext

    cache_key = (bc.seed, bc.locale)
    if cache_key not in gen.edge_cache:
        # block 0's context whatever the block: every shard finds the same edge set
        gen.edge_cache[cache_key] = leaf_edges(gen, BlockContext(bc.seed, 0, bc.locale))
    edges = gen.edge_cache[cache_key]
    if not edges:
        return values, text
    rng = bc.rng(gen.key ^ EDGE_SALT)
    rows = edge_rows(rng, n, gen.spec.edge_rate)
    pick = rng.integers(0, len(edges[0]), size=len(rows))
    return with_edges(values, text, rows, pick, edges)
