"""Breaking one XSD constraint of a record, checked by xmlschema (the rule in xsd_judge.py).

A record is the XML writer's element for it, parsed; a break changes one value (a facet, the
type, a fixed value, an xs:ID repeating an earlier one), adds xsi:nil, drops an attribute, or
drops or repeats child elements; the
broken record is written back on one line and judged as written."""

from __future__ import annotations

import copy
import random
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from xmlschema.validators.validation import DecodeContext

from app.generation.engine.columns import Column
from app.generation.negative.constraints import Constraint
from app.generation.negative.xsd_constraints import FACET_KEYWORDS, xsd_constraints
from app.generation.negative.xsd_content import add_branch, drop_branches, occurs_change, other_branch
from app.generation.negative.xsd_judge import judge_xsd, read_error
from app.generation.negative.xsd_record import Place, parse, places, write
from app.generation.negative.xsd_rules import XsdRules
from app.generation.negative.xsd_scope import Scopes
from app.generation.negative.xsd_values import candidates
from app.generation.writers.xml import XSI_NS, XmlWriter

MAX_CANDIDATES = 12  # values tried per location (those the simple type alone refuses as wanted)
MAX_PLACES = 3  # locations tried per constraint and record
MAX_TREES = 32  # parsed records kept (the build's probe records, the record being broken)
MAX_REMEMBERED = 50_000  # simple-type verdicts kept (_TypeVerdicts)
_POSITIONS = re.compile(r"\[\d+\]")
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")  # not an XML 1.0 Char
_VALUE_KEYWORDS = frozenset({*FACET_KEYWORDS, "type", "fixed"})  # broken by a value


class _TypeVerdicts:
    """Whether a simple type alone refuses a text for a keyword (for `fixed`: accepts it),
    remembered per (type, text, keyword): a type's candidates (`type` tries the same ten texts
    everywhere) are asked of xmlschema once. The decoding context is made once and cleared
    before each text, as `iter_decode` would make it afresh (most of its cost for a short text)."""

    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self.context: DecodeContext | None = None
        self.known: dict[tuple[int, str, str], bool] = {}

    def refuses(self, stype: Any, text: str, keyword: str) -> bool:
        key = (id(stype), text, keyword)
        got = self.known.get(key)
        if got is None:
            if len(self.known) >= MAX_REMEMBERED:
                self.known.clear()
            got = self.known[key] = self._refuses(stype, text, keyword)
        return got

    def _refuses(self, stype: Any, text: str, keyword: str) -> bool:
        if self.context is None:
            source = self.settings.get_resource_from_data(text)
            self.context = DecodeContext(source=source, converter=self.settings.get_converter(source=source))
        self.context.clear()
        stype.raw_decode(text, "lax", self.context)
        errors = list(self.context.errors)
        if keyword == "fixed":
            return not errors
        return any(keyword in read_error(e)[1] for e in errors)


class XsdBreaker:
    """The breakable constraints of one XSD record root and how to break each."""

    kind = "xsd"

    def __init__(self, element: Any, gen: Any, root_name: str, rules: XsdRules | None = None) -> None:
        self.element = element
        self.writer = XmlWriter(gen, xsd=True, root_name=root_name)
        self.constraints = xsd_constraints(element)
        self.rules = rules  # the constraint set's rules (xsd_rules.py): breakable too
        if rules is not None:
            self.constraints += rules.constraints()
        # the output records a duplicate may copy (a unique rule's break), before record `index`
        self.peers: Callable[[int], Iterable[str]] = lambda index: ()
        self.scopes = Scopes(element, _VALUE_KEYWORDS)
        self._types = _TypeVerdicts(element.maps.settings)
        # valid records (the plan's first ones, the same in every shard) a second branch of a
        # choice is copied from; set by attach_negative, parsed once
        self.donors: Sequence[str] = ()
        self._donors: list[ET.Element] | None = None
        self._trees: dict[str, ET.Element] = {}  # see tree
        # (constraint, change) judged as not breaking it alone on one record: alike on all
        self._refused: set[tuple[Constraint, str]] = set()

    def records(self, col: Column) -> list[Any]:
        """The generated records of `col` as XML text (the writer's, one element each)."""
        return list(self.writer.records(col))

    def text(self, fmt: str, broken: Any) -> str:
        if fmt == "xml":
            return str(broken)
        raise ValueError(fmt)

    def _judged(self, c: Constraint, root: ET.Element, place: Place) -> tuple[str, str, str] | None:
        """(text, pointer, sentence) when `root` as written breaks `c.keyword` at `place` alone.
        `root` is judged as parsed back from its text would be (a record read from the writer's
        text, changed only by values without characters XML cannot hold and texts never ""), and
        written once judged."""
        errors, paths = self.scopes.errors(c, root, place)
        if not errors:
            return None
        at = read_error(errors[0], paths[0] if paths else None)[0]
        if _POSITIONS.sub("", at) != place.names():
            return None
        reason, error = judge_xsd(errors, at, c.keyword, paths)
        if reason is not None:
            return None
        message = f"{at}: {getattr(error, 'reason', None) or error}"
        return write(root), at, message[:300]

    def attempt(
        self, c: Constraint, record: Any, rng: random.Random, *, confirm: bool = True, index: int = 0
    ) -> tuple[Any, str, str] | None:
        """(the record's text breaking `c` alone, its location path, a sentence) or None when
        this record cannot break `c` (the location is absent, or every change breaks more).
        `confirm=False` (the build's probe): that a change exists, unjudged (xmlschema reads a
        large record in milliseconds: judging every constraint on the probe records would cost
        more than the run); a constraint no record can break alone is left for other ones when
        records are written (engine.Negative.broken). A rule's break (xsd_rules.py) is judged
        whatever `confirm` says (the probe offers only rules a value can break within the XSD);
        `index`: the record's place in the output (a duplicate copies an earlier record's value)."""
        if c.rule is not None and self.rules is not None:
            return self.rules.attempt(self, c, record, rng, index)
        root = self.tree(record)
        if root is None:
            return None
        found = places(root, tuple(str(s) for s in c.template))
        if not found:
            return None
        picks = rng.sample(range(len(found)), min(MAX_PLACES, len(found))) if len(found) > 1 else [0]
        for k in picks:
            place = found[k]
            for root_copy, at, same in self._changes(c, root, place, rng):
                if not confirm:  # the build's probe: a change exists here; the writes judge it
                    return record, at.names(), ""
                if (c, same) in self._refused:
                    continue
                try:
                    got = self._judged(c, root_copy, at)
                except Exception:  # a change xmlschema cannot judge is not used
                    got = None
                if got is not None:
                    return got
                if same and self.scopes.scope(c) is not None:
                    self._refused.add((c, same))
        return None

    def _changes(
        self, c: Constraint, root: ET.Element, place: Place, rng: random.Random
    ) -> Iterator[tuple[ET.Element, Place, str]]:
        """Changed copies of the record, the place the break shows at and, for a change judged
        alike in every record (its element alone validated: xsi:nil on an emptied element of
        valid attributes), its name ("" for the others), in the order tried."""
        kw, extra = c.keyword, c.extra
        if kw in _VALUE_KEYWORDS:
            old = place.element.get(place.attribute, "") if place.attribute else (place.element.text or "")
            tried = 0
            for cand in candidates(kw, extra.get("facet"), old, extra.get("fixed")):
                if cand == old or not self._types.refuses(extra["stype"], cand, kw):
                    continue
                tried += 1
                if tried > MAX_CANDIDATES:
                    return
                if _NOT_XML.search(cand):  # its text would not parse: never a record
                    continue
                yield self.edit(root, place, lambda el, v=cand: _set(el, place.attribute, v)), place, ""
        elif kw == "ID":  # the value of an ID before it in the record: the repeat is reported here
            for value in self._earlier_ids(root, place)[:MAX_CANDIDATES]:
                yield self.edit(root, place, lambda el, v=value: _set(el, place.attribute, v)), place, ""
        elif kw == "nillable":
            yield self.edit(root, place, _nil_empty), place, "nil-empty"
            yield self.edit(root, place, _nil_keep), place, ""
        elif kw == "use":
            yield self.edit(root, place, lambda el: el.attrib.pop(place.attribute or "", None)), Place(
                place.chain, place.attribute
            ), ""
        elif kw in ("minOccurs", "maxOccurs"):
            yield self.edit(root, place, occurs_change(kw, extra["child"], int(extra["bound"]), extra.get("particle"))), Place(place.chain), ""
        elif kw == "choice":  # no branch, or a second one (copied from a donor record), in a seeded order
            names = frozenset(extra["names"])
            none_first = rng.random() < 0.5
            if none_first:  # the donors are looked through only when a second branch is tried
                yield self.edit(root, place, drop_branches(names)), Place(place.chain), ""
            second = other_branch(names, place, self._donor_trees(), rng)
            if second is not None:
                yield self.edit(root, place, add_branch(names, second, extra.get("branches"))), Place(place.chain), ""
            if not none_first:
                yield self.edit(root, place, drop_branches(names)), Place(place.chain), ""

    def _earlier_ids(self, root: ET.Element, place: Place) -> list[str]:
        """The xs:ID values of `root` on elements before `place`'s in document order, nearest first."""
        order = {el: i for i, el in enumerate(root.iter())}
        mine = order[place.element]
        found: list[tuple[int, str]] = []
        for c in self.constraints:
            if c.keyword != "ID":
                continue
            for p in places(root, tuple(str(s) for s in c.template)):
                value = p.element.get(p.attribute) if p.attribute else p.element.text
                if value and order[p.element] < mine:
                    found.append((order[p.element], value))
        return list(dict.fromkeys(v for _i, v in sorted(found, reverse=True)))

    def tree(self, record: str) -> ET.Element | None:
        """The record parsed, once for the many constraints tried on it (the build's probe tries
        every constraint on the same few records; a write tries up to MAX_TRIES on one). Never
        changed: every change is made to a copy (edit)."""
        root = self._trees.get(record)
        if root is None:
            try:
                root = parse(record)
            except ET.ParseError:
                return None
            if len(self._trees) >= MAX_TREES:
                self._trees.clear()
            self._trees[record] = root
        return root

    def _donor_trees(self) -> list[ET.Element]:
        if self._donors is None:
            self._donors = [parse(d) for d in self.donors]
        return self._donors

    @staticmethod
    def edit(root: ET.Element, place: Place, change: Any) -> ET.Element:
        """A copy of `root` with `change` applied to the copy of `place.element`."""
        index = [list(parent).index(child) for parent, child in zip(place.chain, place.chain[1:], strict=False)]
        new = copy.deepcopy(root)
        el = new
        for i in index:
            el = el[i]
        change(el)
        return new


def _set(el: ET.Element, attribute: str | None, value: str) -> None:
    if attribute:
        el.set(attribute, value)
    else:
        el.text = value or None  # as an empty element's text parses


def _nil_empty(el: ET.Element) -> None:
    el.text = None
    el.set(f"{{{XSI_NS}}}nil", "true")


def _nil_keep(el: ET.Element) -> None:
    el.set(f"{{{XSI_NS}}}nil", "true")
