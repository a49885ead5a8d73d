"""Changes of an element's children that break one content-model constraint of an XSD record:
minOccurs (copies of a child dropped), maxOccurs (copies of the last one added), a choice that
occurs once left with no branch, or given a second branch (an element of another branch, copied
from a valid donor record where that branch was taken at the same location)."""

from __future__ import annotations

import copy
import random
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from typing import Any

from app.generation.negative.xsd_constraints import MAX_OCCURS_ADDED
from app.generation.negative.xsd_record import Place, places, split
from app.generation.negative.xsd_scope import derives_from, holds_document_wide

Change = Callable[[ET.Element], None]


_ID = frozenset({"ID"})


def renew_ids(el: ET.Element, decl: Any, copy_number: int) -> None:
    """Give the xs:ID values in `el` (a copy of an element of declaration `decl`) new ones:
    `-c1` appended for the first copy (an ID is an NCName, which may end so). The declarations
    of `el` and the elements below it are the ones xmlschema matches them to."""
    if decl is None or not holds_document_wide(decl):
        return
    matched: list[tuple[ET.Element, Any]] = []

    def hook(elem: ET.Element, xsd_element: Any) -> bool:
        matched.append((elem, xsd_element))
        return False

    for _error in decl.iter_errors(el, validation_hook=hook):
        pass
    for elem, xsd_element in matched:
        for name, attr in (getattr(xsd_element, "attributes", None) or {}).items():
            value = elem.get(name) if name else None
            if value is not None and derives_from(getattr(attr, "type", None), _ID):
                elem.set(name, f"{value}-c{copy_number}")
        t = getattr(xsd_element, "type", None)
        simple = None if t is None else t if t.is_simple() else t.content if t.has_simple_content() else None
        if simple is not None and elem.text and derives_from(simple, _ID):
            elem.text = f"{elem.text}-c{copy_number}"


def occurs_change(keyword: str, name: str, bound: int, particle: Any = None) -> Change:
    """Drop the children named `name` from the `bound`-th on (minOccurs), or copy the last of
    them until there are bound + 1 (maxOccurs, when at most MAX_OCCURS_ADDED copies do it;
    `particle`: their declaration, for renew_ids)."""

    def change(el: ET.Element) -> None:
        kids = [c for c in el if split(c.tag)[1] == name]
        if keyword == "minOccurs":
            for child in kids[bound - 1 :] if len(kids) >= bound else []:
                el.remove(child)
        elif kids and 0 < bound + 1 - len(kids) <= MAX_OCCURS_ADDED:
            at = list(el).index(kids[-1]) + 1
            for j in range(bound + 1 - len(kids)):
                twin = copy.deepcopy(kids[-1])
                renew_ids(twin, particle, j + 1)
                el.insert(at + j, twin)

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


def add_branch(names: frozenset[str], second: ET.Element, branches: dict[str, Any] | None = None) -> Change:
    """Put a copy of `second` (another branch of the choice) right after the branch taken;
    `branches`: the branches' declarations by local name, for renew_ids (the donor's IDs may
    be the record's own: donors are records of the same seed)."""

    def change(el: ET.Element) -> None:
        last = max(i for i, c in enumerate(el) if split(c.tag)[1] in names)
        twin = copy.deepcopy(second)
        renew_ids(twin, (branches or {}).get(split(twin.tag)[1]), 1)
        el.insert(last + 1, twin)

    return change
