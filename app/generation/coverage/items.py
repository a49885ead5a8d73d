"""Targets inside arrays moved across items (issue 31): a target is derived at the first item of
each array (or repeated XSD element, or repeated choice group) it sits in, but its probe looks at
every item (`*`), so it may be forced at item k instead. A record whose first item already holds
another value of the field takes this one in its second item, and so on: a record carries as many
values of a repeated field as it has items, and the set shrinks toward the largest single domain.

A position is moved by rewriting the pins' row addresses (`targets.row_key`: an item is keyed
`parent * cap + position`) at that array's level, and the array's own `AtLeast` length pin to
cover the new position. Prefix items (tuple arrays) are never moved: their probes name the
position."""

from __future__ import annotations

from itertools import product

from app.generation.coverage.targets import AtLeast, PinKey, PinSet
from app.generation.engine.arrays import ArrayGen
from app.generation.engine.generators import Gen

# positions tried per array level, and pin sets tried per target (the packing's work is
# targets x records x variants)
_POSITIONS = 12
_VARIANTS = 24


class _Level:
    """An array a target's pins sit inside, at its item position (not a prefix item)."""

    def __init__(self, key: PinKey, gen: ArrayGen, first: int) -> None:
        self.key, self.gen, self.first = key, gen, first
        self.depth = len(key.address)  # the index of this array's (cap, position) in an address
        self.cap = max(gen.max_items, 1)
        self.positions = range(first, min(gen.max_items, first + _POSITIONS))

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


def placements(pins: PinSet, gens: dict[int, Gen]) -> list[PinSet]:
    """`pins` first, then the same pins moved to later items of the arrays they sit in (the
    innermost array's items first), at most _VARIANTS in all."""
    levels = _levels(pins, gens)[:2]  # the two innermost: moving outer items too costs more than it saves
    if not levels:
        return [pins]
    spots = sorted(product(*(lv.positions for lv in levels)), key=lambda to: (sum(to), to))
    return [pins] + [_moved(pins, levels, to) for to in spots[1:_VARIANTS]]
