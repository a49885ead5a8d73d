"""`ObjectGen`: child columns with presence masks, dependencies, conditionals and xs:assert re-draws."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np

from app.generation.engine.agreement import Unit, UnitInput, role_of
from app.generation.engine.columns import Column, Obj, spread, take
from app.generation.engine.countries import (
    COUNTRY_ROLES,
    PIVOT_DEPTH,
    CountryPivot,
    by_locale,
    country_locale,
    country_of,
    fill_by_locale,
    locale_shaped,
    unit_shaped,
)
from app.generation.engine.generators import (
    OPTIONAL_PRESENCE,
    REDRAWS,
    BlockContext,
    Gen,
    LeafGen,
    Rows,
    Shared,
    concat_cols,
    is_group,
    null_mask,
    plain_json,
    redraw_negated,
)
from app.generation.engine.matcher import accepts
from app.generation.engine.pins import pin_nulls, pin_presence
from app.generation.errors import Unsatisfiable
from app.generation.model import Node

# xs:assert re-draw rounds: a test a random draw meets 40% of the time fails a row after all
# rounds with probability 0.6^32 (about 1e-7)
_ASSERT_REDRAWS = 32


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
    # sibling fields drawn together (agreement.py): a person, a place, ordered times
    units: list[Unit] = field(default_factory=list)
    # optional objects, arrays and choices drawn for their present rows only (set by the record
    # budget when it scales presence down: most of such a record's optional content is absent)
    compact: bool = False
    # the record's country, drawn first when it is an enum of countries (countries.py)
    country_pivot: CountryPivot | None = None

    def sub_generators(self) -> list[Gen | None]:
        return [s.gen for s in self.slots]

    def generate(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Obj:
        if len(bc.locales) > 1:
            return self._by_locale(bc, rows, shared)
        if self.country_pivot is not None and bc.split is None:
            return self.country_pivot.draw(bc, rows, shared, self._one_locale)
        return self._one_locale(bc, rows, shared)

    def _one_locale(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Obj:
        col = self._draw(bc, rows, shared)
        if self.negations:
            col = redraw_negated(self, bc, rows, shared, col)
        if self.assertion_check is not None:
            col = self._asserted(bc, rows, shared, col)
        return col

    def _by_locale(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Obj:
        """`params.locales`: each record's locale is drawn from the list (keyed by the record, so
        any sharding gives the same one); the rows of each locale are drawn as one locale's."""
        which = record_locales(bc.seed, rows.keys, len(bc.locales))
        parts: list[tuple[np.ndarray, Obj]] = []
        for li, locale in enumerate(bc.locales):
            idx = np.flatnonzero(which == li)
            if not idx.size:
                continue
            sub_bc = BlockContext(
                bc.seed, bc.block, locale, bc.salt * 1000 + 900 + li, minimal=bc.minimal, nil_all=bc.nil_all
            )
            sub = self._one_locale(sub_bc, rows.subset(idx), None if shared is None else shared.subset(idx))
            parts.append((idx, sub))
        merged = parts[0][1]
        for _, sub in parts[1:]:
            merged = concat_cols(merged, sub)
        order = np.empty(rows.n, dtype=np.int64)
        order[np.concatenate([idx for idx, _ in parts])] = np.arange(rows.n)
        return take(merged, order)

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
            sbc = BlockContext(
                bc.seed,
                bc.block,
                bc.locale,
                bc.salt * 1000 + 700 + r,
                locales=bc.locales,
                minimal=bc.minimal or late,
                nil_all=bc.nil_all or (late and r % 2 == 1),
            )
            sub = self._draw(sbc, rows.subset(idx), None if shared is None else shared.subset(idx))
            col = _replace_obj_rows(col, idx, sub)
            # only the re-drawn rows are checked again: the others already passed
            sub_bad, reason = self._assertion_failures(sub)
            bad[idx] = sub_bad
        if bad.any():
            raise Unsatisfiable(
                f"{self.node.path or self.name or '(root)'}: could not draw content meeting its "
                f"xs:assert after {_ASSERT_REDRAWS} re-draws ({int(bad.sum())} of {col.n} rows "
                f"still fail: {reason})."
            )
        return col

    def _draw(self, bc: BlockContext, rows: Rows, shared: Shared | None) -> Obj:
        n = rows.n
        rng = bc.rng(self.key)
        # a spliced group shares its parent's groups: its fields are the parent's fields
        own = shared if (self.group and shared is not None) else Shared(bc, self.key, n)
        # presence first: the object's own stream draws the masks in slot order, then `_apart`,
        # then the null mask; the children draw from streams of their own, so drawing them after
        # the masks are settled changes no value and lets a compact object draw only present rows
        present: list[np.ndarray | None] = [
            np.zeros(n, dtype=bool)
            if slot.gen is None
            else None
            if slot.required
            else rng.random(n) < (0.0 if bc.minimal else slot.presence)
            for slot in self.slots
        ]
        pin_presence(self.pins, rows.keys, present)
        self._dependencies(present, n)
        self._property_counts(present, n)
        if self.not_all:
            self._apart(rng, present, n)
        fields: list[Column | None] = []
        derived = {i for unit in self.units for i in unit.slots}
        # below a record whose country was drawn first, only what the locale shapes is drawn
        # per locale (names, addresses, phones, texts; objects pass the split on)
        whole = bc if bc.split is None else replace(bc, split=None)
        for i, slot in enumerate(self.slots):
            if slot.gen is None or i in derived:
                fields.append(None)
            elif self.compact and (mask := present[i]) is not None and slot.gen.sub_generators():
                fields.append(_present_rows(slot.gen, whole, rows, own, mask))
            elif bc.split is not None and isinstance(slot.gen, ObjectGen) and not slot.gen.group:
                fields.append(slot.gen.generate(bc, rows, own))
            elif bc.split is not None and locale_shaped(slot.gen):
                fields.append(by_locale(bc, rows, own, slot.gen.generate))
            else:
                fields.append(slot.gen.generate(whole, rows, own))
        if self.units:
            inputs = UnitInput(whole, rows, own, fields)
            for unit in self.units:
                if bc.split is not None and unit_shaped(unit):
                    fill_by_locale(unit, bc, rows, own, fields)
                else:
                    unit.fill(inputs)
        col = Obj(n, fields, present, pin_nulls(self.pins, rows.keys, null_mask(rng, n, self.null_rate, bc)))
        if self.node.conditionals and not self.conditionals_off:
            col = self._conditionals(bc, rows, shared, col)
        return col

    def _conditional_failures(self, col: Obj) -> np.ndarray:
        values = self.py(col)
        bad = np.zeros(col.n, dtype=bool)
        index = {s.name: i for i, s in enumerate(self.slots)}
        for i, v in enumerate(values):
            if v is not None and not self._meets_conditionals(col, i, plain_json(v), index):
                bad[i] = True
        return bad

    def _meets_conditionals(self, col: Obj, i: int, plain: Any, index: dict[str, int]) -> bool:
        """Whether row `i` meets every condition, after mending it in place where a condition
        fails: a property the branch requires but the row lacks is added; failing that, the
        optional property that triggers a schema dependency is left out (a nested schema whose
        dependency cannot be met, ajv's secure meta-schema's patternProperties, would otherwise
        be re-drawn round after round, at every level of the recursion)."""
        defs = self.definitions
        mended = False
        for cond in self.node.conditionals:
            branch = cond.then if accepts(cond.if_, plain, defs) else cond.else_
            if branch is None or accepts(branch, plain, defs):
                continue
            added = False
            for child in branch.children:
                j = index.get(child.name)
                if j is None or not child.required or child.name in plain:
                    continue
                mask = col.present[j]
                if mask is not None and col.fields[j] is not None:
                    mask[i] = True
                    added = mended = True
            if added:
                plain = plain_json(self.py(col.take(np.array([i])))[0])
                if accepts(branch, plain, defs):
                    continue
            j = index.get(cond.trigger) if cond.trigger is not None else None
            mask = None if j is None else col.present[j]
            if mask is None or self.node.min_properties is not None:
                return False
            mask[i] = False
            mended = True
            plain = {k: v for k, v in plain.items() if k != cond.trigger}
        if not mended:
            return True
        # a mend may undo an earlier condition: the row is judged again as it now stands
        return all(
            (b := c.then if accepts(c.if_, plain, defs) else c.else_) is None or accepts(b, plain, defs)
            for c in self.node.conditionals
        )

    def _conditionals(self, bc: BlockContext, rows: Rows, shared: Shared | None, col: Obj) -> Obj:
        bad = self._conditional_failures(col)
        plain = ObjectGen(
            self.node,
            self.key,
            self.name,
            self.slots,
            self.null_rate,
            self.group,
            conditionals_off=True,
            not_all=self.not_all,
            units=self.units,
            compact=self.compact,
        )
        for r in range(REDRAWS):
            if not bad.any():
                return col
            idx = np.flatnonzero(bad)
            sub = plain.generate(
                bc.salted(r), rows.subset(idx), None if shared is None else shared.subset(idx)
            )
            col = _replace_obj_rows(col, idx, sub)
            bad = self._conditional_failures(col)
        if bad.any():
            raise Unsatisfiable(
                f"{self.node.path or self.name}: could not draw values meeting its if/then/else conditions."
            )
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
                given = present[i]
                trigger = np.ones(n, dtype=bool) if given is None else given
                for name in needed:
                    j = index.get(name)
                    if j is None or self.slots[j].gen is None:
                        continue
                    mask = present[j]
                    if mask is not None:
                        present[j] = mask | trigger

    def _apart(self, rng: np.random.Generator, present: list[np.ndarray | None], n: int) -> None:
        """Where every member of a `not: {required: [...]}` group is present, drop one optional
        member (chosen per row); the compiler made sure each group has an optional member."""
        for group in self.not_all:
            together = np.ones(n, dtype=bool)
            for i in group:
                mask = present[i]
                if mask is not None:
                    together &= mask
            if not together.any():
                continue
            optional = [i for i in group if present[i] is not None]
            pick = rng.integers(0, len(optional), size=n)
            for k, i in enumerate(optional):
                mask = present[i]
                assert mask is not None  # `optional` holds the slots with a presence mask
                present[i] = mask & ~(together & (pick == k))

    def _property_counts(self, present: list[np.ndarray | None], n: int) -> None:
        lo, hi = self.node.min_properties, self.node.max_properties
        if lo is None and hi is None:
            return
        optional = [i for i, p in enumerate(present) if p is not None and self.slots[i].gen is not None]
        count = sum((np.ones(n, dtype=np.int64) if p is None else p.astype(np.int64)) for p in present)
        for i in optional:
            mask = present[i]
            assert mask is not None  # `optional` holds the slots with a presence mask
            if lo is not None:
                add = (count < lo) & ~mask
                present[i] = mask | add
                count = count + add
        for i in reversed(optional):
            mask = present[i]
            assert mask is not None
            if hi is not None:
                drop = (count > hi) & mask
                present[i] = mask & ~drop
                count = count - drop

    def py(self, col: Column) -> list[Any]:
        assert isinstance(col, Obj)
        n = col.n
        plain = all(s.name and not is_group(s.gen) for s in self.slots) and all(
            p is None for p in col.present
        )
        names = [s.name for s in self.slots]
        out: list[dict[str, Any]]
        if plain:
            cols: list[list[Any]] = []
            for s, f in zip(self.slots, col.fields, strict=True):
                # every slot is present in every row: it has a generator and a column
                assert s.gen is not None and f is not None
                cols.append(s.gen.py(f))
            out = (
                [dict(zip(names, vals, strict=True)) for vals in zip(*cols, strict=True)]
                if cols
                else [{} for _ in range(n)]
            )
        else:
            out = [{} for _ in range(n)]
            for slot, f, p in zip(self.slots, col.fields, col.present, strict=True):
                if slot.gen is None or f is None:
                    continue
                vals = slot.gen.py(f)
                rows = range(n) if p is None else np.flatnonzero(p).tolist()
                if not slot.name or is_group(slot.gen):
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
        if col.nulls is None:
            return out
        # the same list, widened (nothing else holds it): a null object's record becomes None
        records = cast("list[dict[str, Any] | None]", out)
        for i in np.flatnonzero(col.nulls).tolist():
            records[i] = None
        return records


_GOLDEN = 0x9E3779B97F4A7C15


def record_locales(seed: int, keys: np.ndarray, count: int) -> np.ndarray:
    """Each record's index into `params.locales`: a splitmix64 hash of (seed, record key)."""
    x = keys.astype(np.uint64) + np.uint64((seed * _GOLDEN) & 0xFFFFFFFFFFFFFFFF)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
    return (x % np.uint64(count)).astype(np.int64)


def _present_rows(gen: Gen, bc: BlockContext, rows: Rows, shared: Shared, mask: np.ndarray) -> Column:
    """`gen` drawn for the rows of `mask` only, spread over all rows (an absent row repeats the
    first drawn one: the presence mask hides it). Row keys keep unique values unique."""
    idx = np.flatnonzero(mask)
    if idx.size == rows.n:
        return gen.generate(bc, rows, shared)
    drawn = idx if idx.size else np.zeros(1, dtype=np.int64)
    sub = gen.generate(bc, rows.subset(drawn), shared.subset(drawn))
    return spread(sub, idx, rows.n)


def _replace_obj_rows(col: Obj, idx: np.ndarray, sub: Obj) -> Obj:

    keep = np.ones(col.n, dtype=bool)
    keep[idx] = False
    kept = np.flatnonzero(keep)
    merged = concat_cols(take(col, kept), sub)
    order = np.empty(col.n, dtype=np.int64)
    order[np.concatenate([kept, idx])] = np.arange(col.n)
    return take(merged, order)


def country_pivot(root: Any) -> CountryPivot | None:
    """The record's country field when it is an enum of two or more countries, at least one of
    them one a supported locale stands for: searched in the record's object and the objects
    below it (not inside arrays or choices), nearest first."""
    level: list[tuple[tuple[int, ...], Any]] = [((), root)]
    for _ in range(PIVOT_DEPTH):
        below: list[tuple[tuple[int, ...], Any]] = []
        for path, obj in level:
            if not isinstance(obj, ObjectGen):
                continue
            for i, slot in enumerate(obj.slots):
                gen = slot.gen
                if isinstance(gen, ObjectGen):
                    below.append(((*path, i), gen))
                elif isinstance(gen, LeafGen) and role_of(gen) in COUNTRY_ROLES and gen.choices:
                    codes = {c: code for c in gen.choices if (code := country_of(c)) is not None}
                    if len(gen.choices) >= 2 and any(country_locale(code) for code in codes.values()):
                        return CountryPivot((*path, i), gen, codes)
        level = below
    return None
