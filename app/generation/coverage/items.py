"""Targets inside arrays moved across items (issue 31): a target is derived at the first item of
each array (or repeated XSD element, or repeated choice group) it sits in, but its probe looks at
every item (`*`), so it may be forced at item k instead. A record whose first item already holds
another value of the field takes this one in its second item, and so on: a record carries as many
values of a repeated field as it has items, and the set shrinks toward the largest single domain.

A position is moved by rewriting the pins' row addresses (`targets.row_key`: an item is keyed
`parent * cap + position`) at that array's level, and the array's own `AtLeast` length pin to
cover the new position. Prefix items (tuple arrays) are never moved: their probes name the
position.

A random record draws at most ARRAY_SPREAD items beyond minItems where maxItems is unbounded or
large; a coverage record may be pinned to more (`widen`), so that it carries more values of a
repeated field and the set needs fewer records; `ItemBudget` keeps such a record's expected
values within the record budget random records are fitted to (engine/budget.py)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product

from app.generation.coverage.targets import AtLeast, PinKey, PinSet, merge
from app.generation.engine.arrays import ArrayGen
from app.generation.engine.budget import RECORD_VALUE_BUDGET, expected_values
from app.generation.engine.choices import ChoiceGen
from app.generation.engine.generators import Gen, distinct_generators
from app.generation.engine.objects import ObjectGen

# positions tried per array level, and pin sets tried per target (the packing's work is
# targets x records x variants)
_POSITIONS = 12
_VARIANTS = 24
# the items beyond minItems a coverage record may be pinned to (within maxItems/maxOccurs and the
# record budget)
PIN_ITEMS = _POSITIONS  # no more than the positions a target is tried at


def widen(root: Gen) -> None:
    """Let coverage pins ask for up to PIN_ITEMS items beyond minItems in every array whose
    declared maximum is above what random records draw, and no more items than hold
    RECORD_VALUE_BUDGET values (the expected values of one record) between them. Random records of
    the plan still draw their lengths as before; their row keys leave room for the extra items."""
    memo: dict[int, float] = {}
    for g in distinct_generators(root):
        if not isinstance(g, ArrayGen) or g.item is None:
            continue
        declared = g.node.max_items
        if declared is not None and declared <= g.max_items:
            continue
        per_item = max(1.0, expected_values(g.item, 1.0, memo))
        fit = int(RECORD_VALUE_BUDGET // per_item)
        most = g.min_items + PIN_ITEMS if declared is None else min(declared, g.min_items + PIN_ITEMS)
        g.pin_items = max(g.max_items, min(most, fit))


class ItemBudget:
    """A record's expected values with its pins, summed pin by pin from the tree's expected record
    (engine/budget.py): a present slot adds its absent share of the slot's values, a branch its
    difference from the options' mean, a length its items beyond the mean length. A target goes
    to items beyond what a random record draws (a widened array) only while that sum stays within
    RECORD_VALUE_BUDGET; placements a record could take before widening are not limited."""

    def __init__(self, root: Gen, gens: dict[int, Gen]) -> None:
        self.gens = gens
        self.memo: dict[int, float] = {}
        self.base = self._values(root)
        # id -> (record, its sum): records are changed in place only by `merge`
        self._totals: dict[int, tuple[PinSet, float]] = {}

    def _values(self, g: Gen | None) -> float:
        return expected_values(g, 1.0, self.memo)

    def _cost(self, k: PinKey, v: object) -> float:
        g = self.gens.get(k.gen)
        if k.table == "present" and isinstance(g, ObjectGen) and 0 <= k.slot < len(g.slots):
            slot = g.slots[k.slot]
            share = 0.0 if slot.required else (1.0 - slot.presence if v else -slot.presence)
            return share * self._values(slot.gen)
        if k.table == "branch" and isinstance(g, ChoiceGen) and isinstance(v, int):
            live = [self._values(o) for o in g.options if o is not None]
            return self._values(g.options[v]) - sum(live) / max(1, len(live))
        if k.table == "lengths" and isinstance(g, ArrayGen) and g.item is not None:
            items = v.items if isinstance(v, AtLeast) else v
            if isinstance(items, int):
                return (items - (g.min_items + g.max_items) / 2) * self._values(g.item)
        return 0.0

    def _widens(self, record: PinSet, pins: PinSet) -> bool:
        for k, v in pins.items():
            g = self.gens.get(k.gen)
            items = v.items if isinstance(v, AtLeast) else v
            if k.table == "lengths" and isinstance(g, ArrayGen) and isinstance(items, int) and items > g.max_items:
                had = record.get(k)
                before = had.items if isinstance(had, AtLeast) else had
                if not isinstance(before, int) or before < items:
                    return True
        return False

    def _delta(self, record: PinSet, pins: PinSet) -> float:
        """What merging `pins` into `record` adds to its sum."""
        out = 0.0
        for k, v in pins.items():
            old = record.get(k)
            if old == v or k.table not in ("present", "branch", "lengths"):
                continue
            one = {k: old} if old is not None else {}
            merge(one, {k: v})
            out += self._cost(k, one[k]) - (self._cost(k, old) if old is not None else 0.0)
        return out

    def _total(self, record: PinSet) -> float:
        got = self._totals.get(id(record))
        if got is None or got[0] is not record:
            # the record itself is held with its sum: its id cannot be reused meanwhile
            got = (record, self.base + sum(self._cost(k, v) for k, v in record.items()))
            self._totals[id(record)] = got
        return got[1]

    def fits(self, record: PinSet, pins: PinSet) -> bool:
        """Whether `record` may take `pins` (compatible with it)."""
        if not self._widens(record, pins):
            return True
        return self._total(record) + self._delta(record, pins) <= RECORD_VALUE_BUDGET

    def merge(self, record: PinSet, pins: PinSet) -> None:
        """`pins` merged into `record` (targets.merge), its sum kept up to date."""
        got = self._totals.get(id(record))
        if got is not None and got[0] is record:
            self._totals[id(record)] = (record, got[1] + self._delta(record, pins))
        merge(record, pins)


class _Level:
    """An array a target's pins sit inside, at its item position (not a prefix item)."""

    def __init__(self, key: PinKey, gen: ArrayGen, first: int) -> None:
        self.key, self.gen, self.first = key, gen, first
        self.depth = len(key.address)  # the index of this array's (cap, position) in an address
        self.cap = gen.cap
        self.positions = range(first, min(gen.cap, first + _POSITIONS))

    def inside(self, address: tuple[tuple[int, int], ...]) -> bool:
        return (
            len(address) > self.depth
            and address[: self.depth] == self.key.address
            and address[self.depth] == (self.cap, self.first)
        )


def _levels(pins: PinSet, gens: dict[int, Gen]) -> list[_Level]:
    """The arrays whose item `pins` is placed in, innermost first."""
    out: list[_Level] = []
    for k, v in pins.items():
        if k.table != "lengths" or not isinstance(v, AtLeast):
            continue
        g = gens.get(k.gen)
        if not isinstance(g, ArrayGen) or g.item is None:
            continue
        first = len(g.prefix)
        level = _Level(k, g, first)
        if len(level.positions) > 1 and any(level.inside(o.address) for o in pins):
            out.append(level)
    out.sort(key=lambda lv: -lv.depth)
    return out


def _moved(pins: PinSet, levels: list[_Level], to: tuple[int, ...]) -> PinSet:
    out: PinSet = {}
    for k, v in pins.items():
        address = list(k.address)
        for level, pos in zip(levels, to, strict=True):
            if level.inside(k.address):
                address[level.depth] = (level.cap, pos)
            if k == level.key and isinstance(v, AtLeast):
                v = AtLeast(max(v.items, pos + 1))
        out[PinKey(k.gen, k.table, tuple(address), k.slot)] = v
    return out


class Placements:
    """`pins` first, then the same pins moved to later items of the arrays they sit in (the
    innermost array's items first), at most _VARIANTS in all; each made when first asked for
    (most targets take the first), then kept for the next record tried."""

    def __init__(self, pins: PinSet, gens: dict[int, Gen]) -> None:
        self.made: list[PinSet] = [pins]
        # the two innermost levels: moving outer items too costs more than it saves
        self.levels = _levels(pins, gens)[:2]
        spots = sorted(product(*(lv.positions for lv in self.levels)), key=lambda to: (sum(to), to))
        self.spots = spots[1:_VARIANTS] if self.levels else []

    def __iter__(self) -> Iterator[PinSet]:
        i = 0
        while i < len(self.made) or i - 1 < len(self.spots):
            if i == len(self.made):
                self.made.append(_moved(self.made[0], self.levels, self.spots[i - 1]))
            yield self.made[i]
            i += 1
