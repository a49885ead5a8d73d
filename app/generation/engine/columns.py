"""The columnar form of a block of records, as produced by the compiled generators.
Design notes: docs/generation.md."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, Self, TypeVar

import numpy as np


@dataclass
class Leaf:
    values: list[Any]  # JSON-ready: str, int, float, bool, orjson.Fragment, None (null)
    kind: str  # "string" | "integer" | "number" | "boolean" | "null" | "any"
    text_values: list[str | None] | None = None  # lexical forms when they differ from `values`

    @property
    def n(self) -> int:
        return len(self.values)

    def text(self) -> list[str | None]:
        """Lexical form of every value (XML/CSV/SQL); None for null."""
        if self.text_values is not None:
            return self.text_values
        if self.kind == "string":
            return self.values
        if self.kind == "boolean":
            self.text_values = [None if v is None else ("true" if v else "false") for v in self.values]
        elif self.kind == "integer":
            self.text_values = [None if v is None else str(v) for v in self.values]
        else:
            import orjson

            self.text_values = [
                None if v is None else v if isinstance(v, str) else orjson.dumps(v).decode()
                for v in self.values
            ]
        return self.text_values

    def take(self, idx: np.ndarray) -> Leaf:
        vals = [self.values[i] for i in idx.tolist()]
        text = None if self.text_values is None else [self.text_values[i] for i in idx.tolist()]
        return Leaf(vals, self.kind, text)


@dataclass
class Obj:
    n: int
    fields: list[Column | None]  # aligned with the compiled object's children
    present: list[np.ndarray | None]  # per child: rows where it is present (None = all)
    nulls: np.ndarray | None = None  # rows where the whole object is null

    def take(self, idx: np.ndarray) -> Obj:
        return Obj(
            len(idx),
            [None if f is None else take(f, idx) for f in self.fields],
            [None if p is None else p[idx] for p in self.present],
            None if self.nulls is None else self.nulls[idx],
        )


@dataclass
class Arr:
    lengths: np.ndarray  # int64 per row
    item: Column | None  # sum(lengths) rows (None when every array is empty)
    nulls: np.ndarray | None = None
    offsets: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.offsets = np.concatenate([[0], np.cumsum(self.lengths)]).astype(np.int64)

    @property
    def n(self) -> int:
        return len(self.lengths)

    def take(self, idx: np.ndarray) -> Arr:
        starts, ends = self.offsets[idx], self.offsets[idx + 1]
        lengths = ends - starts
        item = None
        total = int(lengths.sum())
        if self.item is not None and total:
            # item j of the result is item starts[r] + (j - where row r begins) of this column
            begins = np.cumsum(lengths) - lengths
            item_idx = np.arange(total, dtype=np.int64) + np.repeat(starts - begins, lengths)
            item = take(self.item, item_idx)
        return Arr(lengths, item, None if self.nulls is None else self.nulls[idx])


@dataclass
class Choice:
    branch: np.ndarray  # option index per row
    cols: list[Column | None]  # per option, rows = flatnonzero(branch == k)
    nulls: np.ndarray | None = None

    @property
    def n(self) -> int:
        return len(self.branch)

    def rows(self, k: int) -> np.ndarray:
        return np.flatnonzero(self.branch == k)

    def take(self, idx: np.ndarray) -> Choice:
        branch = self.branch[idx]
        cols: list[Column | None] = []
        for k, col in enumerate(self.cols):
            if col is None:
                cols.append(None)
                continue
            # position of each selected row inside option k's own column
            pos = np.cumsum(self.branch == k) - 1
            sel = idx[branch == k]
            cols.append(take(col, pos[sel]))
        return Choice(branch, cols, None if self.nulls is None else self.nulls[idx])


Column = Leaf | Obj | Arr | Choice


class _Takes(Protocol):
    def take(self, idx: np.ndarray) -> Self: ...


# a column of one known shape: `take` keeps it (Leaf in, Leaf out)
_TakesT = TypeVar("_TakesT", bound=_Takes)


def take(col: _TakesT, idx: np.ndarray) -> _TakesT:
    return col.take(np.asarray(idx, dtype=np.int64))


def spread(col: Column, idx: np.ndarray, n: int) -> Column:
    """`col` (one row per entry of `idx`, or one row when `idx` is empty) as a column of `n`
    rows holding its row j at row idx[j]: what an optional field drawn only for its present rows
    becomes. The other rows are filler a presence mask hides: arrays empty, optional children
    absent, scalars a copy of the first value, so nothing below an absent row is copied."""
    if isinstance(col, Leaf):
        first = col.values[0]
        values = [first] * n
        for i, v in zip(idx.tolist(), col.values, strict=False):
            values[i] = v
        text = None
        if col.text_values is not None:
            text = [col.text_values[0]] * n
            for i, t in zip(idx.tolist(), col.text_values, strict=False):
                text[i] = t
        return Leaf(values, col.kind, text)
    if isinstance(col, Arr):
        lengths = np.zeros(n, dtype=np.int64)
        if idx.size:
            lengths[idx] = col.lengths
        item = col.item if idx.size else None
        return Arr(lengths, item, _spread_mask(col.nulls, idx, n))
    if isinstance(col, Obj):
        return Obj(
            n,
            [None if f is None else spread(f, idx, n) for f in col.fields],
            [None if p is None else _spread_mask(p, idx, n) for p in col.present],
            _spread_mask(col.nulls, idx, n),
        )
    # a choice's option columns hold their rows in row order: the filler rows repeat row 0
    rows = np.zeros(n, dtype=np.int64)
    rows[idx] = np.arange(idx.size)
    return take(col, rows)


def _spread_mask(mask: np.ndarray | None, idx: np.ndarray, n: int) -> np.ndarray | None:
    if mask is None:
        return None
    out = np.zeros(n, dtype=bool)
    if idx.size:
        out[idx] = mask
    return out
