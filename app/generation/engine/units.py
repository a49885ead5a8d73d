"""The units of one object's children (`agreement.py`, `timeline.py`), planned once per object by
the compiler. Design notes: docs/generation.md (records that agree with themselves)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.generation.engine.agreement import Unit, person_unit, place_unit, role_of
from app.generation.engine.generators import LeafGen
from app.generation.engine.timeline import time_unit


def plan_units(
    slots: Sequence[Any], after: Mapping[str, str], none_for: set[tuple[Any, ...]] | None = None
) -> list[Unit]:
    """The units of one object's children (`slots` are its ChildSlots; `after` maps a child's
    path to the path of the sibling it follows, from the rules).

    `none_for` remembers the leaf sets found to have no unit, so an object type repeated at
    thousands of positions (UBL 2.1 Invoice: 25,000 objects) is looked at once. A leaf set is
    its leaves' positions and nodes: a scalar node compiles to the same spec, values and choices
    wherever it stands (`Compiler.scalar`), and a spec-less leaf is the always-null stand-in."""
    leaves = {i: s.gen for i, s in enumerate(slots) if isinstance(s.gen, LeafGen) and s.name}
    key = None
    if none_for is not None and not after:
        key = tuple((i, g.node, g.spec is None) for i, g in leaves.items())
        if key in none_for:
            return []
    roles = {i: role_of(g) for i, g in leaves.items()}
    units: list[Unit] = []
    for unit in (person_unit(leaves, roles), place_unit(leaves, roles), time_unit(leaves, after)):
        if unit is not None:
            units.append(unit)
    if not units and key is not None and none_for is not None:
        none_for.add(key)
    return units
