"""Forced outcomes for chosen rows (coverage sets, app/generation/coverage): a generator with `pins`
draws every row as usual, then overrides the rows whose key is pinned. Keyed by the row's global
key (the record index at the top; `parent * cap + position` inside arrays), so the override holds
through sub-blocks, choice subsets and every re-draw loop, and no unpinned row changes its draw."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class Pins:
    """What is forced, by row key. Only the tables a generator kind reads matter to it."""

    values: dict[int, tuple[Any, str | None]] = field(default_factory=dict)  # leaf: (value, its text)
    nulls: dict[int, bool] = field(default_factory=dict)  # True: null/nil; False: not null
    branch: dict[int, int] = field(default_factory=dict)  # choice: the option index
    present: dict[int, dict[int, bool]] = field(default_factory=dict)  # object: slot index -> present
    lengths: dict[int, int] = field(default_factory=dict)  # array: the item count
    min_lengths: dict[int, int] = field(default_factory=dict)  # array: at least this many items

    def __bool__(self) -> bool:
        return bool(self.values or self.nulls or self.branch or self.present or self.lengths or self.min_lengths)


def pinned_rows(table: dict[int, Any], keys: np.ndarray) -> list[tuple[int, Any]]:
    """(row index, pinned outcome) for the rows of `keys` that `table` pins."""
    if not table:
        return []
    return [(i, table[k]) for i, k in enumerate(keys.tolist()) if k in table]


def pin_nulls(pins: Pins | None, keys: np.ndarray, nulls: np.ndarray | None) -> np.ndarray | None:
    """A null mask with the pinned rows set as pinned."""
    rows = pinned_rows(pins.nulls, keys) if pins is not None else []
    if not rows:
        return nulls
    out = np.zeros(len(keys), dtype=bool) if nulls is None else nulls.copy()
    for i, null in rows:
        out[i] = null
    return out if out.any() else None


def pin_branch(pins: Pins | None, keys: np.ndarray, branch: np.ndarray) -> np.ndarray:
    rows = pinned_rows(pins.branch, keys) if pins is not None else []
    if not rows:
        return branch
    out = branch.copy()
    for i, b in rows:
        out[i] = b
    return out


def pin_lengths(pins: Pins | None, keys: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    if pins is None or not (pins.lengths or pins.min_lengths):
        return lengths
    out = lengths.copy()
    for i, n in pinned_rows(pins.min_lengths, keys):
        out[i] = max(out[i], n)
    for i, n in pinned_rows(pins.lengths, keys):
        out[i] = n
    return out


def pin_presence(pins: Pins | None, keys: np.ndarray, present: list[np.ndarray | None]) -> None:
    """Set the pinned optional slots present or absent (required slots have no mask: left alone)."""
    for i, slots in pinned_rows(pins.present, keys) if pins is not None else []:
        for s, on in slots.items():
            mask = present[s]
            if mask is not None:
                mask[i] = on


def pin_values(
    pins: Pins | None, keys: np.ndarray, values: list[Any], text: list[Any] | None
) -> tuple[list[Any], list[Any] | None]:
    rows = pinned_rows(pins.values, keys) if pins is not None else []
    if not rows:
        return values, text
    values = list(values)
    text = None if text is None else list(text)
    for i, (v, t) in rows:
        values[i] = v
        if text is not None:
            text[i] = t if t is not None else v
    return values, text
