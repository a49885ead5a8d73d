"""Value distributions and edge cases a rule can ask for (`distribution`, `mean`, `sd`,
`edge_rate`), drawn over a closed range of integer steps [lo, hi] with NumPy.

Every draw stays inside [lo, hi]: a normal or lognormal value outside is drawn again (a few
rounds, so the shape is the truncated distribution) and what is still outside is clipped.
`skewed` is Zipf-like: the value at rank r from the low end (or enum position r) comes with
weight ~ 1/(r+1); over a range of integers the ranks are drawn as a log-uniform, the continuous
form of Zipf's law with exponent 1. Design notes: docs/generation.md."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

_REDRAWS = 8
EDGE_SALT = 0x5EED_ED6E  # the edge mask has its own stream: the other values stay as they were


@dataclass(frozen=True)
class Shape:
    """A rule's distribution, in the units it is drawn in (mean/sd already scaled)."""

    name: str = "uniform"
    mean: float | None = None
    sd: float | None = None


def draw_steps(rng: np.random.Generator, n: int, lo: int, hi: int, shape: Shape) -> np.ndarray:
    """n int64 values in [lo, hi] following `shape` (hi - lo < 2**62)."""
    if shape.name == "uniform" or lo == hi:
        return rng.integers(lo, hi + 1, size=n)
    if shape.name == "skewed":
        span = hi - lo + 1
        # log-uniform over [1, span + 1): rank r has mass ~ log((r + 2) / (r + 1)) ~ 1 / (r + 1)
        ranks = np.floor(np.exp(rng.random(n) * math.log(span + 1))).astype(np.int64) - 1
        return lo + np.clip(ranks, 0, span - 1)
    x = _continuous(rng, n, lo, hi, shape)
    out = np.rint(x)
    bad = (out < lo) | (out > hi)
    for _ in range(_REDRAWS):
        if not bad.any():
            break
        idx = np.flatnonzero(bad)
        out[idx] = np.rint(_continuous(rng, idx.size, lo, hi, shape))
        bad[idx] = (out[idx] < lo) | (out[idx] > hi)
    steps: np.ndarray = np.clip(out, lo, hi).astype(np.int64)
    return steps


def _continuous(rng: np.random.Generator, n: int, lo: int, hi: int, shape: Shape) -> np.ndarray:
    if shape.name == "normal":
        assert shape.mean is not None and shape.sd is not None  # the rule check requires both
        return rng.normal(shape.mean, shape.sd, size=n)
    # lognormal, shifted to start at lo: from the mean and sd of the values when given, else a
    # median a tenth of the way up the range and sigma 1 (about 1% beyond hi, drawn again)
    if shape.mean is not None and shape.sd is not None and shape.mean > lo:
        m = shape.mean - lo
        sigma2 = math.log1p((shape.sd / m) ** 2)
        mu = math.log(m) - sigma2 / 2
        return lo + rng.lognormal(mu, math.sqrt(sigma2), size=n)
    median = max((hi - lo) / 10, 1.0)
    return lo + rng.lognormal(math.log(median), 1.0, size=n)


def zipf_weights(count: int) -> np.ndarray:
    """Probabilities of enum positions 0..count-1 under `skewed` (1/(r+1), normalised)."""
    w = 1.0 / np.arange(1, count + 1, dtype=np.float64)
    weights: np.ndarray = w / w.sum()
    return weights


def draw_choice(rng: np.random.Generator, n: int, count: int, shape: str | None) -> np.ndarray:
    """Enum positions: uniform, or Zipf-like in the listed order."""
    if shape == "skewed" and count > 1:
        cdf = np.cumsum(zipf_weights(count))
        idx: np.ndarray = np.minimum(np.searchsorted(cdf, rng.random(n), side="right"), count - 1)
        return idx
    return rng.integers(0, count, size=n)


def edge_rows(rng: np.random.Generator, n: int, rate: float) -> np.ndarray:
    """The rows (indexes) that take an edge value instead of their drawn one."""
    if rate <= 0 or n == 0:
        return np.zeros(0, dtype=np.intp)
    return np.flatnonzero(rng.random(n) < rate)


def with_edges(
    values: list[Any],
    text: list[str] | None,
    rows: np.ndarray,
    pick: np.ndarray,
    edges: tuple[list[Any], list[str]],
) -> tuple[list[Any], list[str] | None]:
    """`values`/`text` with row rows[i] replaced by edge value pick[i]."""
    if not len(rows):
        return values, text
    e_vals, e_text = edges
    values = list(values)
    text = None if text is None else list(text)
    for r, p in zip(rows.tolist(), pick.tolist(), strict=True):
        values[r] = e_vals[p]
        if text is not None:
            text[r] = e_text[p]
    return values, text
