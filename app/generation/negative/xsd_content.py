"""Changes of an element's children that break one content-model constraint of an XSD record:
minOccurs (copies of a child dropped), maxOccurs (copies of the last one added), a choice that
occurs once left with no branch, or given a second branch (an element of another branch, copied
from a valid donor record where that branch was taken at the same location)."""

from __future__ import annotations

import copy
import random
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence

from app.generation.negative.xsd_constraints import MAX_OCCURS_ADDED
from app.generation.negative.xsd_record import Place, places, split

Change = Callable[[ET.Element], None]


def occurs_change(keyword: str, name: str, bound: int) -> Change:
    """Drop the children named `name` from the `bound`-th on (minOccurs), or copy the last of
    them until there are bound + 1 (maxOccurs, when at most MAX_OCCURS_ADDED copies do it)."""

    def change(el: ET.Element) -> None:
        kids = [c for c in el if split(c.tag)[1] == name]
        if keyword == "minOccurs":
            for child in kids[bound - 1 :] if len(kids) >= bound else []:
                el.remove(child)
        elif kids and 0 < bound + 1 - len(kids) <= MAX_OCCURS_ADDED:
            at = list(el).index(kids[-1]) + 1
            for j in range(bound + 1 - len(kids)):
                el.insert(at + j, copy.deepcopy(kids[-1]))

    return change


def drop_branches(names: frozenset[str]) -> Change:
    """Leave the choice (its elements' local names `names`) with no branch."""

    def change(el: ET.Element) -> None:
        for child in [c for c in el if split(c.tag)[1] in names]:
            el.remove(child)

    return change


def other_branch(
    names: frozenset[str], place: Place, donors: Sequence[ET.Element], rng: random.Random
) -> ET.Element | None:
    """An element of the choice the record at `place` did not take, from the donors at the same
    location (the template of `place`), drawn with `rng`; None when no donor took another one."""
    taken = {split(c.tag)[1] for c in place.element} & names
    if not taken:
        return None
    template = tuple(split(e.tag)[1] for e in place.chain)
    found = [
        child
        for donor in donors
        for at in places(donor, template)
        for child in at.element
        if split(child.tag)[1] in names - taken
    ]
    return found[rng.randrange(len(found))] if found else None


def add_branch(names: frozenset[str], second: ET.Element) -> Change:
    """Put a copy of `second` (another branch of the choice) right after the branch taken."""

    def change(el: ET.Element) -> None:
        last = max(i for i, c in enumerate(el) if split(c.tag)[1] in names)
        el.insert(last + 1, copy.deepcopy(second))

    return change
