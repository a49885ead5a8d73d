"""The compiled generator tree: one node per field-model position, each filling a whole column.

Randomness is keyed by position, never by call order: a node draws from
`SeedSequence([seed, block, node key, salt])`, where the key is a stable hash of the node's
position in the tree and `salt` separates re-draws. A block's values therefore do not depend on
how records are chunked or sharded.

    LeafGen    scalar (or const/enum) values, with a null mask
    ObjectGen  child columns plus presence masks for optional children (OPTIONAL_PRESENCE);
               an element with xs:assert re-draws the rows xmlschema finds false
    ArrayGen   lengths and one item column; uniqueItems by de-duplication and re-draws
    ChoiceGen  a branch per row; oneOf rows matching another option are re-drawn

`py(col)` turns a column into plain Python values (the JSON form of the records).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson

from app.core.errors import Invalid
from app.generation.engine.columns import Arr, Choice, Column, Leaf, Obj, take
from app.generation.engine.matcher import accepts
from app.generation.model import Kind, LeafContext, LeafSpec, Node
from app.generation.values import vocab

# an optional field (not required) is present in this share of records
OPTIONAL_PRESENCE = 0.8
_MASK64 = (1 << 64) - 1
_REDRAWS = 8
# xs:assert re-draw rounds: a test a random draw meets 40% of the time fails a row after all
# rounds with probability 0.6^32 (about 1e-7)
_ASSERT_REDRAWS = 32


@dataclass
class BlockContext:
    seed: int
    block: int
    locale: str
    salt: int = 0
    # re-draws for oneOf / if-then-else: optional fields absent and arrays at minItems, which
    # is what usually separates overlapping options
    minimal: bool = False
    # xs:assert re-draws: every nullable (nillable) value null; a test that needs several
    # elements nil at once is rarely met by independent draws (two at the default rate: ~1%)
    nil_all: bool = False

    def rng(self, key: int) -> np.random.Generator:
        return np.random.Generator(np.random.PCG64(
            np.random.SeedSequence([self.seed & _MASK64, self.block, key & _MASK64, self.salt])))

    def salted(self, salt: int) -> BlockContext:
        return BlockContext(self.seed, self.block, self.locale, self.salt * 1000 + salt + 1,
                            minimal=self.minimal or salt >= _REDRAWS // 2, nil_all=self.nil_all)


@dataclass
class Rows:
    n: int
    keys: np.ndarray  # global key of each row (int64)
    key_space: int

    def subset(self, idx: np.ndarray) -> Rows:
        return Rows(len(idx), self.keys[idx], self.key_space)


class Shared:
    """Row indexes shared by the fields of one object (the `person` and `address` groups)."""

    def __init__(self, bc: BlockContext, key: int, n: int) -> None:
        self.bc, self.key, self.n = bc, key, n
        self._cache: dict[tuple[str, int], np.ndarray] = {}

    def __call__(self, group: str, size: int) -> np.ndarray:
        got = self._cache.get((group, size))
        if got is None:
            got = self.bc.rng(self.key ^ (hash_key(group) & _MASK64)).integers(0, size, size=self.n)
            self._cache[(group, size)] = got
        return got

    def subset(self, idx: np.ndarray) -> Shared:
        return _SharedSubset(self, idx)


class _SharedSubset(Shared):
    """The group indexes of some rows of an object (the rows one choice option fills)."""

    def __init__(self, parent: Shared, idx: np.ndarray) -> None:
        super().__init__(parent.bc, parent.key, len(idx))
        self.parent, self.idx = parent, idx

    def __call__(self, group: str, size: int) -> np.ndarray:
        return self.parent(group, size)[self.idx]


def hash_key(text: str) -> int:
    import hashlib

    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


class Gen:
    node: Node
    key: int
    name: str  # the key this value has in its parent object ("" for an anonymous group)

    def generate(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Column:
        raise NotImplementedError

    def py(self, col: Column) -> list[Any]:
        raise NotImplementedError


def _nulls(rng: np.random.Generator, n: int, rate: float, bc: BlockContext) -> np.ndarray | None:
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

    def generate(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Leaf:
        col = self._draw(bc, rows, shared)
        return _avoid(self, bc, rows, shared, col) if self.negations else col  # type: ignore[return-value]

    def _draw(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Leaf:
        n = rows.n
        rng = bc.rng(self.key)
        if self.always_null:
            return Leaf([None] * n, self.kind)
        text = None
        if self.choices is not None:
            if self.spec is not None and self.spec.unique:
                if len(self.choices) < rows.key_space:
                    raise Invalid(f"{self.node.path}: only {len(self.choices)} allowed values, "
                                  f"but {rows.key_space} unique values are needed.")
                idx = rows.keys % len(self.choices)
            else:
                idx = rng.integers(0, len(self.choices), size=n)
            values = [self.choices[i] for i in idx.tolist()]
            if self.choice_text is not None:
                text = [self.choice_text[i] for i in idx.tolist()]
        elif self.boolean:
            values = (rng.random(n) < 0.5).tolist()
        else:
            ctx = LeafContext(rng, bc.locale, rows.keys, rows.key_space,
                              shared if shared is not None else Shared(bc, self.key, n),
                              bc.seed, self.key)
            if self.spec is not None and (self.spec.unique or self.spec.row_number):
                lv = self.values_gen.generate_unique(ctx)
            else:
                lv = self.values_gen.generate(ctx, n)
            values, text = lv.values, lv.text
        nulls = _nulls(rng, n, self.null_rate, bc)
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


@dataclass(eq=False)
class ChildSlot:
    gen: Gen | None  # None: never present (recursion cap)
    name: str
    required: bool
    presence: float = OPTIONAL_PRESENCE
    ruled: bool = False  # presence set by a rule's null_rate: the record budget leaves it alone


@dataclass(eq=False)
class ObjectGen(Gen):
    node: Node
    key: int
    name: str
    slots: list[ChildSlot] = field(default_factory=list)
    null_rate: float = 0.0
    group: bool = False  # anonymous model group spliced into the parent element
    definitions: dict[str, Node] = field(default_factory=dict)
    conditionals_off: bool = False
    # `not: {required: [...]}`: slot indexes that must never all be present in one record
    not_all: list[list[int]] = field(default_factory=list)
    negations: list[Node] = field(default_factory=list)  # any other `not`: offending rows re-drawn
    # xs:assert: the element's RecordValidator (XmlInfo.assertion_check); failing rows re-drawn
    assertion_check: Any = None
    # renders this element's rows as XML for the check (given by the plan, which owns the writers)
    assertion_render: Callable[[ObjectGen], Callable[[Obj], list[str]]] | None = None
    _assertion_records: Callable[[Obj], list[str]] | None = field(default=None, repr=False)

    def generate(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Obj:
        col = self._draw(bc, rows, shared)
        if self.negations:
            col = _avoid(self, bc, rows, shared, col)  # type: ignore[assignment]
        if self.assertion_check is not None:
            col = self._asserted(bc, rows, shared, col)
        return col

    def _assertion_failures(self, col: Obj) -> tuple[np.ndarray, str | None]:
        """Rows whose element xmlschema finds invalid (its xs:assert false), and the first reason."""
        if self._assertion_records is None:
            if self.assertion_render is None:
                raise RuntimeError("an xs:assert element was compiled without an XML renderer")
            self._assertion_records = self.assertion_render(self)
        bad = np.zeros(col.n, dtype=bool)
        first: str | None = None
        for i, err in self.assertion_check.xml_errors(self._assertion_records(col)):
            bad[i] = True
            first = first or err
        return bad, first

    def _asserted(self, bc: BlockContext, rows: Rows, shared: Shared | None, col: Obj) -> Obj:
        """Rejection sampling for xs:assert: rows whose rendered element fails are re-drawn
        (salted; later rounds minimal: optional content absent, arrays at their minimum, which
        often makes a universally quantified test vacuously true, and every other one of them
        with nillable elements nil)."""
        bad, reason = self._assertion_failures(col)
        for r in range(_ASSERT_REDRAWS):
            if not bad.any():
                return col
            idx = np.flatnonzero(bad)
            late = r >= _ASSERT_REDRAWS * 3 // 4
            # late rounds alternate between minimal content and minimal content with every
            # nillable element nil: either may be what the test needs
            sbc = BlockContext(bc.seed, bc.block, bc.locale, bc.salt * 1000 + 700 + r,
                               minimal=bc.minimal or late, nil_all=bc.nil_all or (late and r % 2 == 1))
            sub = self._draw(sbc, rows.subset(idx), None if shared is None else shared.subset(idx))
            col = _replace_obj_rows(col, idx, sub)
            bad, reason = self._assertion_failures(col)
        if bad.any():
            raise Invalid(f"{self.node.path or self.name or '(root)'}: could not draw content meeting its "
                          f"xs:assert after {_ASSERT_REDRAWS} re-draws ({int(bad.sum())} of {col.n} rows "
                          f"still fail: {reason}).")
        return col

    def _draw(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Obj:
        n = rows.n
        rng = bc.rng(self.key)
        # a spliced group shares its parent's groups: its fields are the parent's fields
        own = shared if (self.group and shared is not None) else Shared(bc, self.key, n)
        fields: list[Column | None] = []
        present: list[np.ndarray | None] = []
        for slot in self.slots:
            if slot.gen is None:
                fields.append(None)
                present.append(np.zeros(n, dtype=bool))
                continue
            fields.append(slot.gen.generate(bc, rows, own))
            present.append(None if slot.required else rng.random(n) < (0.0 if bc.minimal else slot.presence))
        self._dependencies(present, n)
        self._property_counts(present, n)
        if self.not_all:
            self._apart(rng, present, n)
        col = Obj(n, fields, present, _nulls(rng, n, self.null_rate, bc))
        if self.node.conditionals and not self.conditionals_off:
            col = self._conditionals(bc, rows, shared, col)
        return col

    def _conditional_failures(self, col: Obj) -> np.ndarray:
        values = self.py(col)
        defs = self.definitions
        bad = np.zeros(col.n, dtype=bool)
        index = {s.name: i for i, s in enumerate(self.slots)}
        for i, v in enumerate(values):
            if v is None:
                continue
            plain = _plain(v)
            for cond in self.node.conditionals:
                branch = cond.then if accepts(cond.if_, plain, defs) else cond.else_
                if branch is None:
                    continue
                if not accepts(branch, plain, defs):
                    # a property the branch requires may simply be absent here: add it
                    fixed = False
                    for child in branch.children:
                        j = index.get(child.name)
                        if child.required and child.name not in plain and j is not None and \
                                col.present[j] is not None and col.fields[j] is not None:
                            col.present[j][i] = True  # type: ignore[index]
                            fixed = True
                    if not fixed or not accepts(branch, _plain(self.py(col.take(np.array([i])))[0]), defs):
                        bad[i] = True
        return bad

    def _conditionals(self, bc: BlockContext, rows: Rows, shared: Shared | None, col: Obj) -> Obj:
        bad = self._conditional_failures(col)
        plain = ObjectGen(self.node, self.key, self.name, self.slots, self.null_rate, self.group,
                          conditionals_off=True, not_all=self.not_all)
        for r in range(_REDRAWS):
            if not bad.any():
                return col
            idx = np.flatnonzero(bad)
            sub = plain.generate(bc.salted(r), rows.subset(idx), None if shared is None else shared.subset(idx))
            col = _replace_obj_rows(col, idx, sub)
            bad = self._conditional_failures(col)
        if bad.any():
            raise Invalid(f"{self.node.path or self.name}: could not draw values meeting its if/then/else "
                          f"conditions.")
        return col

    def _dependencies(self, present: list[np.ndarray | None], n: int) -> None:
        deps = self.node.dependent_required
        if not deps:
            return
        index = {s.name: i for i, s in enumerate(self.slots)}
        for _ in range(3):  # chains of dependencies settle in a few passes
            for key, needed in deps.items():
                i = index.get(key)
                if i is None:
                    continue
                trigger = np.ones(n, dtype=bool) if present[i] is None else present[i]
                for name in needed:
                    j = index.get(name)
                    if j is not None and present[j] is not None and self.slots[j].gen is not None:
                        present[j] = present[j] | trigger

    def _apart(self, rng: np.random.Generator, present: list[np.ndarray | None], n: int) -> None:
        """Where every member of a `not: {required: [...]}` group is present, drop one optional
        member (chosen per row); the compiler made sure each group has an optional member."""
        for group in self.not_all:
            together = np.ones(n, dtype=bool)
            for i in group:
                if present[i] is not None:
                    together &= present[i]  # type: ignore[arg-type]
            if not together.any():
                continue
            optional = [i for i in group if present[i] is not None]
            pick = rng.integers(0, len(optional), size=n)
            for k, i in enumerate(optional):
                present[i] = present[i] & ~(together & (pick == k))  # type: ignore[operator]

    def _property_counts(self, present: list[np.ndarray | None], n: int) -> None:
        lo, hi = self.node.min_properties, self.node.max_properties
        if lo is None and hi is None:
            return
        optional = [i for i, p in enumerate(present) if p is not None and self.slots[i].gen is not None]
        count = sum((np.ones(n, dtype=np.int64) if p is None else p.astype(np.int64)) for p in present)
        for i in optional:
            if lo is not None:
                add = (count < lo) & ~present[i]  # type: ignore[operator]
                present[i] = present[i] | add  # type: ignore[operator]
                count = count + add
        for i in reversed(optional):
            if hi is not None:
                drop = (count > hi) & present[i]  # type: ignore[operator]
                present[i] = present[i] & ~drop  # type: ignore[operator]
                count = count - drop

    def py(self, col: Column) -> list[Any]:
        assert isinstance(col, Obj)
        n = col.n
        plain = all(s.name and not _is_group(s.gen) for s in self.slots) and all(
            p is None for p in col.present)
        names = [s.name for s in self.slots]
        if plain:
            cols = [s.gen.py(f) for s, f in zip(self.slots, col.fields, strict=True)]  # type: ignore[union-attr]
            out = [dict(zip(names, vals, strict=True)) for vals in zip(*cols, strict=True)] if cols else [
                {} for _ in range(n)]
        else:
            out = [{} for _ in range(n)]
            for slot, f, p in zip(self.slots, col.fields, col.present, strict=True):
                if slot.gen is None or f is None:
                    continue
                vals = slot.gen.py(f)
                rows = range(n) if p is None else np.flatnonzero(p).tolist()
                if not slot.name or _is_group(slot.gen):
                    for i in rows:
                        frag = vals[i]
                        if isinstance(frag, dict):
                            out[i].update(frag)
                        elif isinstance(frag, list):  # a repeated group: its elements become lists
                            for item in frag:
                                for k, v in (item or {}).items():
                                    out[i].setdefault(k, []).append(v)
                else:
                    for i in rows:
                        out[i][slot.name] = vals[i]
        if col.nulls is not None:
            for i in np.flatnonzero(col.nulls).tolist():
                out[i] = None
        return out


def _is_group(gen: Gen | None) -> bool:
    return isinstance(gen, (ObjectGen, ChoiceGen)) and gen.name == "" and getattr(gen, "group", True)


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

    def _item_rows(self, rows: Rows, lengths: np.ndarray) -> Rows:
        parent = np.repeat(rows.keys, lengths)
        starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
        pos = np.arange(int(lengths.sum())) - starts
        cap = max(self.max_items, 1)
        return Rows(len(parent), parent * cap + pos, rows.key_space * cap)

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
        return _avoid(self, bc, rows, shared, col) if self.negations else col  # type: ignore[return-value]

    def _draw(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Arr:
        n = rows.n
        rng = bc.rng(self.key)
        hi = self.min_items if bc.minimal else self.max_items
        lengths = rng.integers(self.min_items, hi + 1, size=n).astype(np.int64)
        item = self._items(bc, rows, lengths)
        arr = Arr(lengths, item)
        if self.unique_items and item is not None:
            arr = self._dedupe(bc, rows, arr)
        arr.nulls = _nulls(rng, n, self.null_rate, bc)
        return arr

    def _dedupe(self, bc: BlockContext, rows: Rows, arr: Arr) -> Arr:

        for r in range(_REDRAWS + 1):
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
                return Arr(lengths, take(arr.item, idx) if idx.size else None)  # type: ignore[arg-type]
            if r == _REDRAWS:
                break
            # re-draw the arrays left too short, with a new salt
            plain = ArrayGen(self.node, self.key, self.name, self.item, self.min_items, self.max_items,
                             self.prefix, False)
            bad = np.flatnonzero(short)
            sub = plain.generate(bc.salted(r), rows.subset(bad), None)
            arr = _splice_arrays(arr, bad, sub)
        raise Invalid(f"{self.node.path}: could not draw {self.min_items} distinct items (uniqueItems).")

    def py(self, col: Column) -> list[Any]:
        assert isinstance(col, Arr)
        items = self.item_py(col.item)
        off = col.offsets.tolist()
        out: list[Any] = [items[off[i]:off[i + 1]] for i in range(col.n)]
        if col.nulls is not None:
            for i in np.flatnonzero(col.nulls).tolist():
                out[i] = None
        return out


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
        if isinstance(g, ObjectGen):
            stack.extend(s.gen for s in g.slots)
        elif isinstance(g, ArrayGen):
            stack.extend([*g.prefix, g.item])
        elif isinstance(g, ChoiceGen):
            stack.extend(g.options)


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
    both = _concat_cols(old_items, new_items)
    item = take(both, np.array(order, dtype=np.int64)) if order and both is not None else None
    return Arr(lengths, item)


def _concat_cols(a: Column | None, b: Column | None) -> Column | None:
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, Leaf) and isinstance(b, Leaf):
        ta = a.text_values
        tb = b.text_values
        text = None if ta is None and tb is None else [*(a.text() if ta is None else ta),
                                                        *(b.text() if tb is None else tb)]
        return Leaf([*a.values, *b.values], a.kind, text)
    if isinstance(a, Obj) and isinstance(b, Obj):
        fields = [_concat_cols(x, y) for x, y in zip(a.fields, b.fields, strict=True)]
        present = [None if (p is None and q is None) else np.concatenate([
            np.ones(a.n, dtype=bool) if p is None else p, np.ones(b.n, dtype=bool) if q is None else q])
            for p, q in zip(a.present, b.present, strict=True)]
        nulls = None if a.nulls is None and b.nulls is None else np.concatenate([
            np.zeros(a.n, dtype=bool) if a.nulls is None else a.nulls,
            np.zeros(b.n, dtype=bool) if b.nulls is None else b.nulls])
        return Obj(a.n + b.n, fields, present, nulls)
    if isinstance(a, Arr) and isinstance(b, Arr):
        nulls = None if a.nulls is None and b.nulls is None else np.concatenate([
            np.zeros(a.n, dtype=bool) if a.nulls is None else a.nulls,
            np.zeros(b.n, dtype=bool) if b.nulls is None else b.nulls])
        return Arr(np.concatenate([a.lengths, b.lengths]), _concat_cols(a.item, b.item), nulls)
    if isinstance(a, Choice) and isinstance(b, Choice):
        cols = [_concat_cols(x, y) for x, y in zip(a.cols, b.cols, strict=True)]
        nulls = None if a.nulls is None and b.nulls is None else np.concatenate([
            np.zeros(a.n, dtype=bool) if a.nulls is None else a.nulls,
            np.zeros(b.n, dtype=bool) if b.nulls is None else b.nulls])
        # option columns hold rows in row order; concatenation keeps that order per option
        return Choice(np.concatenate([a.branch, b.branch]), cols, nulls)
    raise TypeError("cannot concatenate columns of different shapes")


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

    def generate(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Choice:
        col = self._draw(bc, rows, shared)
        return _avoid(self, bc, rows, shared, col) if self.negations else col  # type: ignore[return-value]

    def _draw(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Choice:
        n = rows.n
        rng = bc.rng(self.key)
        live = np.array([i for i, g in enumerate(self.options) if g is not None])
        branch = live[rng.integers(0, len(live), size=n)]
        col = self._fill(bc, rows, shared, branch)
        if self.exclusive or self.must_match is not None:
            col = self._exclusive(bc, rows, shared, col, live)
        col.nulls = _nulls(rng, n, self.null_rate, bc)
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
                bad[i] = v is not None and not accepts(self.must_match, _plain(v), self.definitions)
            return bad
        for i, v in enumerate(values):
            b = int(col.branch[i])
            for k, g in enumerate(self.options):
                # judged against the schema's own options: a compiled option may be narrowed
                # (a property made required so its values stay out of the other options)
                if k != b and g is not None and accepts(self.node.options[k], _plain(v), self.definitions):
                    bad[i] = True
                    break
        return bad

    def _exclusive(self, bc: BlockContext, rows: Rows, shared: Shared | None, col: Choice,
                   live: np.ndarray) -> Choice:
        bad = self._overlaps(col)
        # options whose values keep overlapping others are drawn less on each re-draw
        wins = np.full(len(self.options), 0.05)
        for r in range(2 * _REDRAWS):
            if not bad.any():
                return col
            np.add.at(wins, col.branch[~bad], 1.0)
            weights = wins[live] / wins[live].sum()
            idx = np.flatnonzero(bad)
            sbc = bc.salted(r)
            branch = live[sbc.rng(self.key).choice(len(live), size=idx.size, p=weights)]
            sub = self._fill(sbc, rows.subset(idx), None if shared is None else shared.subset(idx), branch)
            col = _replace_rows(col, idx, sub)
            bad = self._overlaps(col)
        if bad.any():
            if self.must_match is not None:
                what = "'contains' or if/then/else" if self.node.kind is Kind.ARRAY else "if/then/else"
                raise Invalid(f"{self.node.path or self.name}: could not draw values meeting its {what} "
                              f"conditions.")
            raise Invalid(f"{self.node.path}: oneOf options overlap so much that no value matching exactly "
                          f"one of them could be drawn.")
        return col

    def py(self, col: Column) -> list[Any]:
        assert isinstance(col, Choice)
        out: list[Any] = [None] * col.n
        for k, g in enumerate(self.options):
            sub = col.cols[k]
            if g is None or sub is None:
                continue
            vals = g.py(sub)
            if self.group and g.name and not _is_group(g):
                vals = [{g.name: v} for v in vals]  # an element chosen inside a group
            for i, v in zip(col.rows(k).tolist(), vals, strict=True):
                out[i] = v
        if col.nulls is not None:
            for i in np.flatnonzero(col.nulls).tolist():
                out[i] = None
        return out


def _negated(gen: Any, col: Column) -> np.ndarray:
    """Rows whose value matches one of the generator's negated subschemas."""
    bad = np.zeros(col.n, dtype=bool)
    defs = getattr(gen, "definitions", None) or {}
    for i, v in enumerate(gen.py(col)):
        if v is None:
            continue
        plain = v if isinstance(v, str | bool | int) else _plain(v)
        bad[i] = any(accepts(neg, plain, defs) for neg in gen.negations)
    return bad


def _avoid(gen: Any, bc: BlockContext, rows: Rows, shared: Shared | None, col: Column) -> Column:
    """JSON Schema `not`: re-draw (salted) the rows whose value matches a negated subschema."""

    bad = _negated(gen, col)
    for r in range(2 * _REDRAWS):
        if not bad.any():
            return col
        idx = np.flatnonzero(bad)
        # a salt of its own (other re-draw loops use small ones); later rounds draw minimal values
        sbc = BlockContext(bc.seed, bc.block, bc.locale, bc.salt * 1000 + 500 + r,
                           minimal=bc.minimal or r >= _REDRAWS)
        sub = gen._draw(sbc, rows.subset(idx), None if shared is None else shared.subset(idx))
        keep = np.flatnonzero(~bad)
        merged = _concat_cols(take(col, keep), sub)
        order = np.empty(col.n, dtype=np.int64)
        order[np.concatenate([keep, idx])] = np.arange(col.n)
        col = take(merged, order)  # type: ignore[arg-type]
        bad = _negated(gen, col)
    if bad.any():
        raise Invalid(f"{gen.node.path or gen.name or '(root)'}: could not draw values outside its 'not' "
                      f"subschema.")
    return col


def _plain(v: Any) -> Any:
    """JSON round trip: what a validator sees (Fragments become numbers)."""
    return orjson.loads(orjson.dumps(v))


def _replace_obj_rows(col: Obj, idx: np.ndarray, sub: Obj) -> Obj:

    keep = np.ones(col.n, dtype=bool)
    keep[idx] = False
    kept = np.flatnonzero(keep)
    merged = _concat_cols(take(col, kept), sub)
    order = np.empty(col.n, dtype=np.int64)
    order[np.concatenate([kept, idx])] = np.arange(col.n)
    out = take(merged, order)  # type: ignore[arg-type]
    assert isinstance(out, Obj)
    return out


def _replace_rows(col: Choice, idx: np.ndarray, sub: Choice) -> Choice:

    keep = np.ones(col.n, dtype=bool)
    keep[idx] = False
    kept = np.flatnonzero(keep)
    merged = _concat_cols(take(col, kept), sub)
    assert isinstance(merged, Choice)
    # rows are now [kept..., idx...]; restore the original order
    order = np.empty(col.n, dtype=np.int64)
    order[np.concatenate([kept, idx])] = np.arange(col.n)
    out = take(merged, order)
    assert isinstance(out, Choice)
    return out


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
        nulls = _nulls(rng, rows.n, self.null_rate, bc)
        if nulls is not None:
            for i in np.flatnonzero(nulls).tolist():
                values[i] = None
        return Leaf(values, "string")

    def py(self, col: Column) -> list[Any]:
        assert isinstance(col, Leaf)
        return col.values


__all__ = ["AnyGen", "ArrayGen", "BlockContext", "ChildSlot", "ChoiceGen", "Gen", "LeafGen",
           "ObjectGen", "Rows", "Shared", "hash_key"]
