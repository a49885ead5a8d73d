"""`ChoiceGen`: a branch per row; oneOf rows that match another option are re-drawn."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.generation.engine.columns import Choice, Column, take
from app.generation.engine.generators import (
    REDRAWS,
    BlockContext,
    Gen,
    Rows,
    Shared,
    concat_cols,
    is_group,
    null_mask,
    plain_json,
    redraw_negated,
)
from app.generation.engine.matcher import accepts
from app.generation.engine.pins import pin_branch, pin_nulls
from app.generation.errors import Unsatisfiable
from app.generation.model import Kind, Node


@dataclass(eq=False)
class ChoiceGen(Gen):
    node: Node
    key: int
    name: str
    options: list[Gen | None]
    definitions: dict[str, Node] = field(default_factory=dict)
    exclusive: bool = False  # oneOf whose options may overlap: check and re-draw
    null_rate: float = 0.0
    group: bool = False
    # variants of one object (if/then/else): every value must satisfy this node, conditions included
    must_match: Node | None = None
    negations: list[Node] = field(default_factory=list)

    def sub_generators(self) -> list[Gen | None]:
        return list(self.options)

    def generate(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Choice:
        col = self._draw(bc, rows, shared)
        return redraw_negated(self, bc, rows, shared, col) if self.negations else col

    def _draw(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Choice:
        n = rows.n
        rng = bc.rng(self.key)
        live = np.array([i for i, g in enumerate(self.options) if g is not None])
        branch = pin_branch(self.pins, rows.keys, live[rng.integers(0, len(live), size=n)])
        col = self._fill(bc, rows, shared, branch)
        if self.exclusive or self.must_match is not None:
            col = self._exclusive(bc, rows, shared, col, live)
        col.nulls = pin_nulls(self.pins, rows.keys, null_mask(rng, n, self.null_rate, bc))
        return col

    def _fill(self, bc: BlockContext, rows: Rows, shared: Shared | None, branch: np.ndarray) -> Choice:
        cols: list[Column | None] = []
        for k, g in enumerate(self.options):
            idx = np.flatnonzero(branch == k)
            if g is None or not idx.size:
                cols.append(None)
                continue
            cols.append(g.generate(bc, rows.subset(idx), None if shared is None else shared.subset(idx)))
        return Choice(branch, cols)

    def _overlaps(self, col: Choice) -> np.ndarray:
        values = self.py(col)
        bad = np.zeros(col.n, dtype=bool)
        if self.must_match is not None:
            for i, v in enumerate(values):
                bad[i] = v is not None and not accepts(self.must_match, plain_json(v), self.definitions)
            return bad
        for i, v in enumerate(values):
            b = int(col.branch[i])
            for k, g in enumerate(self.options):
                # judged against the schema's own options: a compiled option may be narrowed
                # (a property made required so its values stay out of the other options)
                if (
                    k != b
                    and g is not None
                    and accepts(self.node.options[k], plain_json(v), self.definitions)
                ):
                    bad[i] = True
                    break
        return bad

    def _exclusive(
        self, bc: BlockContext, rows: Rows, shared: Shared | None, col: Choice, live: np.ndarray
    ) -> Choice:
        bad = self._overlaps(col)
        # options whose values keep overlapping others are drawn less on each re-draw
        wins = np.full(len(self.options), 0.05)
        for r in range(2 * REDRAWS):
            if not bad.any():
                return col
            np.add.at(wins, col.branch[~bad], 1.0)
            weights = wins[live] / wins[live].sum()
            idx = np.flatnonzero(bad)
            sbc = bc.salted(r)
            branch = live[sbc.rng(self.key).choice(len(live), size=idx.size, p=weights)]
            branch = pin_branch(self.pins, rows.keys[idx], branch)
            sub = self._fill(sbc, rows.subset(idx), None if shared is None else shared.subset(idx), branch)
            col = _replace_rows(col, idx, sub)
            bad = self._overlaps(col)
        if bad.any():
            if self.must_match is not None:
                what = "'contains' or if/then/else" if self.node.kind is Kind.ARRAY else "if/then/else"
                raise Unsatisfiable(
                    f"{self.node.path or self.name}: could not draw values meeting its {what} conditions."
                )
            raise Unsatisfiable(
                f"{self.node.path}: oneOf options overlap so much that no value matching exactly "
                f"one of them could be drawn."
            )
        return col

    def py(self, col: Column) -> list[Any]:
        assert isinstance(col, Choice)
        out: list[Any] = [None] * col.n
        for k, g in enumerate(self.options):
            sub = col.cols[k]
            if g is None or sub is None:
                continue
            vals = g.py(sub)
            if self.group and g.name and not is_group(g):
                vals = [{g.name: v} for v in vals]  # an element chosen inside a group
            for i, v in zip(col.rows(k).tolist(), vals, strict=True):
                out[i] = v
        if col.nulls is not None:
            for i in np.flatnonzero(col.nulls).tolist():
                out[i] = None
        return out


def _replace_rows(col: Choice, idx: np.ndarray, sub: Choice) -> Choice:

    keep = np.ones(col.n, dtype=bool)
    keep[idx] = False
    kept = np.flatnonzero(keep)
    merged = concat_cols(take(col, kept), sub)
    assert isinstance(merged, Choice)
    # rows are now [kept..., idx...]; restore the original order
    order = np.empty(col.n, dtype=np.int64)
    order[np.concatenate([kept, idx])] = np.arange(col.n)
    out = take(merged, order)
    assert isinstance(out, Choice)
    return out
