"""The units of one object's children (`agreement.py`, `timeline.py`), planned once per object by
the compiler. Design notes: docs/generation.md (records that agree with themselves)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.generation.engine.agreement import Unit, person_unit, place_unit, role_of
from app.generation.engine.generators import LeafGen
from app.generation.engine.timeline import time_unit


def plan_units(slots: Sequence[Any], after: Mapping[str, str]) -> list[Unit]:
    """The units of one object's children (`slots` are its ChildSlots; `after` maps a child's
    path to the path of the sibling it follows, from the rules)."""
    leaves = {i: s.gen for i, s in enumerate(slots) if isinstance(s.gen, LeafGen) and s.name}
    roles = {i: role_of(g) for i, g in leaves.items()}
    units: list[Unit] = []
    for unit in (person_unit(leaves, roles), place_unit(leaves, roles), time_unit(leaves, after)):
        if unit is not None:
            units.append(unit)
    return units
