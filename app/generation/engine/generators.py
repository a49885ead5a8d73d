"""The compiled generator tree's base: block context, row sets, keyed randomness, `Gen`, and the
scalar generators (`LeafGen`, `AnyGen`); objects, arrays and choices have a module each."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, overload

import numpy as np
import orjson

from app.generation.engine.blocks import REDRAWS, BlockContext, Rows, Shared, hash_key
from app.generation.engine.columns import Arr, Choice, Column, Leaf, Obj, take
from app.generation.engine.edges import apply_edges
from app.generation.engine.matcher import accepts
from app.generation.engine.pins import Pins, pin_nulls, pin_values
from app.generation.errors import Unsatisfiable
from app.generation.model import LeafContext, LeafSpec, Node
from app.generation.values import vocab
from app.generation.values.distributions import draw_choice

# an optional field (not required) is present in this share of records
OPTIONAL_PRESENCE = 0.8


class Gen:
    node: Node
    key: int
    name: str  # the key this value has in its parent object ("" for an anonymous group)
    group = False  # an anonymous model group spliced into its parent (objects and choices set it)
    pins: Pins | None = None  # forced outcomes of some rows (coverage sets, see pins.py)

    def sub_generators(self) -> list[Gen | None]:
        """The generators this one draws from (None: a position never present)."""
        return []

    def generate(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Column:
        raise NotImplementedError

    def py(self, col: Column) -> list[Any]:
        raise NotImplementedError


def null_mask(rng: np.random.Generator, n: int, rate: float, bc: BlockContext) -> np.ndarray | None:
    if rate <= 0:
        return None
    if bc.nil_all:  # xs:assert re-draw: every nillable value nil (the emptiest content it allows)
        return np.ones(n, dtype=bool) if n else None
    mask = rng.random(n) < rate
    return mask if mask.any() else None


@dataclass(eq=False)
class LeafGen(Gen):
    node: Node
    key: int
    name: str
    spec: LeafSpec | None
    kind: str  # Leaf.kind
    values_gen: Any = None  # NumberGenerator | TemporalGenerator | StringGenerator | None
    choices: list[Any] | None = None  # enum / const values (JSON-ready)
    choice_text: list[str] | None = None
    null_rate: float = 0.0
    boolean: bool = False
    always_null: bool = False
    negations: list[Node] = field(default_factory=list)  # `not`: values matching one are re-drawn
    edge_cache: dict[tuple[int, str], Any] = field(default_factory=dict)  # (seed, locale) -> edges

    def generate(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Leaf:
        col = self._draw(bc, rows, shared)
        return redraw_negated(self, bc, rows, shared, col) if self.negations else col

    def _draw(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Leaf:
        n = rows.n
        rng = bc.rng(self.key)
        if self.always_null:
            return Leaf([None] * n, self.kind)
        text = None
        if self.choices is not None:
            if self.spec is not None and self.spec.unique:
                if len(self.choices) < rows.key_space:
                    raise Unsatisfiable(
                        f"{self.node.path}: only {len(self.choices)} allowed values, "
                        f"but {rows.key_space} unique values are needed."
                    )
                idx = rows.keys % len(self.choices)
            else:
                idx = draw_choice(rng, n, len(self.choices), self.spec.distribution if self.spec else None)
            values = [self.choices[i] for i in idx.tolist()]
            if self.choice_text is not None:
                text = [self.choice_text[i] for i in idx.tolist()]
        elif self.boolean:
            values = (rng.random(n) < 0.5).tolist()
        else:
            ctx = LeafContext(
                rng,
                bc.locale,
                rows.keys,
                rows.key_space,
                shared if shared is not None else Shared(bc, self.key, n),
                bc.seed,
                self.key,
            )
            if self.spec is not None and (self.spec.unique or self.spec.row_number):
                try:
                    lv = self.values_gen.generate_unique(ctx)
                except Unsatisfiable:
                    if not self.spec.unique_soft:
                        raise
                    lv = self.values_gen.generate(ctx, n)  # unique by default only: too few values
            else:
                lv = self.values_gen.generate(ctx, n)
            values, text = lv.values, lv.text
        if self.spec is not None and self.spec.edge_rate > 0 and not self.spec.unique:
            values, text = apply_edges(self, bc, n, values, text)
        nulls = null_mask(rng, n, self.null_rate, bc)
        if self.pins is not None:
            values, text = pin_values(self.pins, rows.keys, values, text)
            nulls = pin_nulls(self.pins, rows.keys, nulls)
        if nulls is not None:
            values = list(values)
            text = None if text is None else list(text)
            for i in np.flatnonzero(nulls).tolist():
                values[i] = None
                if text is not None:
                    text[i] = None
        return Leaf(values, self.kind, text)

    def py(self, col: Column) -> list[Any]:
        assert isinstance(col, Leaf)
        return col.values


def is_group(gen: Gen | None) -> bool:
    return gen is not None and gen.name == "" and gen.group


def distinct_generators(gen: Gen | None) -> Iterator[Gen]:
    """Every generator of the tree once. Recursion points share generators (the tree is a DAG),
    which a plain tree walk visits exponentially often (xhtml1-strict: ~70 s)."""
    seen: set[int] = set()
    stack: list[Gen | None] = [gen]
    while stack:
        g = stack.pop()
        if g is None or id(g) in seen:
            continue
        seen.add(id(g))
        yield g
        stack.extend(g.sub_generators())


# one column shape, whichever: what concat_cols and redraw_negated return for their arguments
ColumnT = TypeVar("ColumnT", bound=Column)
_ColumnT_co = TypeVar("_ColumnT_co", bound=Column, covariant=True)


@overload
def concat_cols(a: ColumnT, b: ColumnT) -> ColumnT: ...
@overload
def concat_cols(a: Column | None, b: Column | None) -> Column | None: ...
def concat_cols(a: Column | None, b: Column | None) -> Column | None:
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, Leaf) and isinstance(b, Leaf):
        ta = a.text_values
        tb = b.text_values
        text = (
            None
            if ta is None and tb is None
            else [*(a.text() if ta is None else ta), *(b.text() if tb is None else tb)]
        )
        return Leaf([*a.values, *b.values], a.kind, text)
    if isinstance(a, Obj) and isinstance(b, Obj):
        fields = [concat_cols(x, y) for x, y in zip(a.fields, b.fields, strict=True)]
        present = [
            None
            if (p is None and q is None)
            else np.concatenate(
                [np.ones(a.n, dtype=bool) if p is None else p, np.ones(b.n, dtype=bool) if q is None else q]
            )
            for p, q in zip(a.present, b.present, strict=True)
        ]
        nulls = (
            None
            if a.nulls is None and b.nulls is None
            else np.concatenate(
                [
                    np.zeros(a.n, dtype=bool) if a.nulls is None else a.nulls,
                    np.zeros(b.n, dtype=bool) if b.nulls is None else b.nulls,
                ]
            )
        )
        return Obj(a.n + b.n, fields, present, nulls)
    if isinstance(a, Arr) and isinstance(b, Arr):
        nulls = (
            None
            if a.nulls is None and b.nulls is None
            else np.concatenate(
                [
                    np.zeros(a.n, dtype=bool) if a.nulls is None else a.nulls,
                    np.zeros(b.n, dtype=bool) if b.nulls is None else b.nulls,
                ]
            )
        )
        return Arr(np.concatenate([a.lengths, b.lengths]), concat_cols(a.item, b.item), nulls)
    if isinstance(a, Choice) and isinstance(b, Choice):
        cols = [concat_cols(x, y) for x, y in zip(a.cols, b.cols, strict=True)]
        nulls = (
            None
            if a.nulls is None and b.nulls is None
            else np.concatenate(
                [
                    np.zeros(a.n, dtype=bool) if a.nulls is None else a.nulls,
                    np.zeros(b.n, dtype=bool) if b.nulls is None else b.nulls,
                ]
            )
        )
        # option columns hold rows in row order; concatenation keeps that order per option
        return Choice(np.concatenate([a.branch, b.branch]), cols, nulls)
    raise TypeError("cannot concatenate columns of different shapes")


class _Negating(Protocol):
    """A generator with `not` subschemas (leaf, array, choice or object)."""

    node: Node
    name: str
    negations: list[Node]

    def py(self, col: Column) -> list[Any]: ...


class _Redrawing(_Negating, Protocol[_ColumnT_co]):
    def _draw(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> _ColumnT_co: ...


def _negated(gen: _Negating, col: Column) -> np.ndarray:
    """Rows whose value matches one of the generator's negated subschemas."""
    bad = np.zeros(col.n, dtype=bool)
    defs = getattr(gen, "definitions", None) or {}
    for i, v in enumerate(gen.py(col)):
        if v is None:
            continue
        plain = v if isinstance(v, str | bool | int) else plain_json(v)
        bad[i] = any(accepts(neg, plain, defs) for neg in gen.negations)
    return bad


def redraw_negated(
    gen: _Redrawing[ColumnT], bc: BlockContext, rows: Rows, shared: Shared | None, col: ColumnT
) -> ColumnT:
    """JSON Schema `not`: re-draw (salted) the rows whose value matches a negated subschema."""

    bad = _negated(gen, col)
    for r in range(2 * REDRAWS):
        if not bad.any():
            return col
        idx = np.flatnonzero(bad)
        # a salt of its own (other re-draw loops use small ones); later rounds draw minimal values
        sbc = BlockContext(
            bc.seed, bc.block, bc.locale, bc.salt * 1000 + 500 + r, minimal=bc.minimal or r >= REDRAWS
        )
        sub = gen._draw(sbc, rows.subset(idx), None if shared is None else shared.subset(idx))
        keep = np.flatnonzero(~bad)
        merged = concat_cols(take(col, keep), sub)
        order = np.empty(col.n, dtype=np.int64)
        order[np.concatenate([keep, idx])] = np.arange(col.n)
        col = take(merged, order)
        bad = _negated(gen, col)
    if bad.any():
        raise Unsatisfiable(
            f"{gen.node.path or gen.name or '(root)'}: could not draw values outside its 'not' subschema."
        )
    return col


def plain_json(v: Any) -> Any:
    """JSON round trip: what a validator sees (Fragments become numbers)."""
    return orjson.loads(orjson.dumps(v))


@dataclass(eq=False)
class AnyGen(Gen):
    """Unconstrained values (JSON `{}` / XSD anyType): short words."""

    node: Node
    key: int
    name: str
    null_rate: float = 0.0

    def generate(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Leaf:
        rng = bc.rng(self.key)
        words = vocab.simple_pool(bc.locale, "word")
        values = words[rng.integers(0, len(words), size=rows.n)].tolist()
        nulls = null_mask(rng, rows.n, self.null_rate, bc)
        if nulls is not None:
            for i in np.flatnonzero(nulls).tolist():
                values[i] = None
        return Leaf(values, "string")

    def py(self, col: Column) -> list[Any]:
        assert isinstance(col, Leaf)
        return col.values


__all__ = ["AnyGen", "BlockContext", "Gen", "LeafGen", "Rows", "Shared", "distinct_generators", "hash_key"]
