"""`ArrayGen`: lengths and one item column; uniqueItems by de-duplication and re-draws."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson

from app.generation.engine.columns import Arr, Choice, Column, take
from app.generation.engine.generators import (
    REDRAWS,
    BlockContext,
    Gen,
    Rows,
    Shared,
    concat_cols,
    null_mask,
    redraw_negated,
)
from app.generation.engine.pins import pin_lengths, pin_nulls
from app.generation.errors import Unsatisfiable
from app.generation.model import Node


@dataclass(eq=False)
class ArrayGen(Gen):
    node: Node
    key: int
    name: str
    item: Gen | None
    min_items: int
    max_items: int
    prefix: list[Gen] = field(default_factory=list)
    unique_items: bool = False
    null_rate: float = 0.0
    negations: list[Node] = field(default_factory=list)
    # coverage records may pin more items than a random record draws (up to this many; 0: no
    # more than max_items), so one record carries several values of a repeated field
    pin_items: int = 0

    @property
    def cap(self) -> int:
        """The positions an item's row key leaves room for: `parent * cap + position`."""
        return max(self.max_items, self.pin_items, 1)

    def sub_generators(self) -> list[Gen | None]:
        return [*self.prefix, self.item]

    def _item_rows(self, rows: Rows, lengths: np.ndarray) -> Rows:
        parent = np.repeat(rows.keys, lengths)
        starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
        pos = np.arange(int(lengths.sum())) - starts
        return Rows(len(parent), parent * self.cap + pos, rows.key_space * self.cap)

    def _items(self, bc: BlockContext, rows: Rows, lengths: np.ndarray) -> Column | None:
        total = int(lengths.sum())
        if total == 0:
            return None
        irows = self._item_rows(rows, lengths)
        if not self.prefix:
            assert self.item is not None
            return self.item.generate(bc, irows, None)
        starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
        pos = np.arange(total) - starts
        gens = [*self.prefix, *([self.item] if self.item is not None else [])]
        branch = np.minimum(pos, len(gens) - 1)
        cols: list[Column | None] = []
        for k, g in enumerate(gens):
            idx = np.flatnonzero(branch == k)
            cols.append(g.generate(bc, irows.subset(idx), None) if idx.size else None)
        return Choice(branch, cols)

    def item_py(self, col: Column | None) -> list[Any]:
        if col is None:
            return []
        if isinstance(col, Choice) and self.prefix:
            gens = [*self.prefix, *([self.item] if self.item is not None else [])]
            out: list[Any] = [None] * col.n
            for k, g in enumerate(gens):
                sub = col.cols[k]
                if sub is not None:
                    for i, v in zip(col.rows(k).tolist(), g.py(sub), strict=True):
                        out[i] = v
            return out
        assert self.item is not None
        return self.item.py(col)

    def generate(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Arr:
        col = self._draw(bc, rows, shared)
        return redraw_negated(self, bc, rows, shared, col) if self.negations else col

    def _draw(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Arr:
        n = rows.n
        rng = bc.rng(self.key)
        hi = self.min_items if bc.minimal else self.max_items
        lengths = rng.integers(self.min_items, hi + 1, size=n).astype(np.int64)
        lengths = pin_lengths(self.pins, rows.keys, lengths)
        item = self._items(bc, rows, lengths)
        arr = Arr(lengths, item)
        if self.unique_items and item is not None:
            arr = self._dedupe(bc, rows, arr)
        arr.nulls = pin_nulls(self.pins, rows.keys, null_mask(rng, n, self.null_rate, bc))
        return arr

    def _dedupe(self, bc: BlockContext, rows: Rows, arr: Arr) -> Arr:

        for r in range(REDRAWS + 1):
            items = self.item_py(arr.item)
            keep: list[int] = []
            lengths = np.zeros(arr.n, dtype=np.int64)
            off = arr.offsets.tolist()
            for i in range(arr.n):
                seen: set[bytes] = set()
                for j in range(off[i], off[i + 1]):
                    k = orjson.dumps(items[j], option=orjson.OPT_SORT_KEYS)
                    if k not in seen:
                        seen.add(k)
                        keep.append(j)
                lengths[i] = len(seen)
            short = lengths < self.min_items
            if not short.any():
                idx = np.array(keep, dtype=np.int64)
                # (kept items come from the item column: it exists when there are any)
                return Arr(lengths, take(arr.item, idx) if idx.size and arr.item is not None else None)
            if r == REDRAWS:
                break
            # re-draw the arrays left too short, with a new salt
            plain = ArrayGen(
                self.node, self.key, self.name, self.item, self.min_items, self.max_items, self.prefix, False,
                pin_items=self.pin_items,
            )
            plain.pins = self.pins
            bad = np.flatnonzero(short)
            sub = plain.generate(bc.salted(r), rows.subset(bad), None)
            arr = _splice_arrays(arr, bad, sub)
        raise Unsatisfiable(
            f"{self.node.path}: could not draw {self.min_items} distinct items (uniqueItems)."
        )

    def py(self, col: Column) -> list[Any]:
        assert isinstance(col, Arr)
        items = self.item_py(col.item)
        off = col.offsets.tolist()
        out: list[Any] = [items[off[i] : off[i + 1]] for i in range(col.n)]
        if col.nulls is not None:
            for i in np.flatnonzero(col.nulls).tolist():
                out[i] = None
        return out


def _splice_arrays(arr: Arr, rows: np.ndarray, sub: Arr) -> Arr:
    """Replace the arrays at `rows` with `sub` (rebuilding the item column in row order)."""

    lengths = arr.lengths.copy()
    lengths[rows] = sub.lengths
    replaced = np.zeros(arr.n, dtype=bool)
    replaced[rows] = True
    # concatenate old and new item columns, then take them in final row order
    old_items, new_items = arr.item, sub.item
    pieces: list[tuple[int, int, int]] = []  # (source 0/1, start, stop)
    sub_off = sub.offsets.tolist()
    j = 0
    for i in range(arr.n):
        if replaced[i]:
            pieces.append((1, sub_off[j], sub_off[j + 1]))
            j += 1
        else:
            pieces.append((0, int(arr.offsets[i]), int(arr.offsets[i + 1])))
    old_n = int(arr.offsets[-1])
    order = [s if src == 0 else old_n + s for src, a, b in pieces for s in range(a, b)]
    both = concat_cols(old_items, new_items)
    item = take(both, np.array(order, dtype=np.int64)) if order and both is not None else None
    return Arr(lengths, item)
