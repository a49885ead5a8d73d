"""Changes of an element's children that break one content-model constraint of an XSD record:
minOccurs (copies of a child dropped), maxOccurs (copies of the last one added), a choice that
occurs once left with no branch."""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from collections.abc import Callable

from app.generation.negative.xsd_constraints import MAX_OCCURS_ADDED
from app.generation.negative.xsd_record import split

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
