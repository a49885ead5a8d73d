"""Constraint-set rules as breakable constraints of XSD records (issue 30): the value of an
element's text or an attribute set outside a rule's range, lengths, pattern or values, an element
made xsi:nil where the rule's null_rate is 0 (only where the element is nillable), or a value
copied from an earlier record where the rule says unique. The candidates are rule_breaks.py's;
a record is used only when xmlschema finds it valid as a document of its own
(xsd_scope.record_errors) and the changed value breaks that rule key alone among its field's rules.

A rule names a field by its path in the field tree (`holder.name`, `@channel`, `holder.@id`):
xsd_tree.py joins the record keys of the elements and attributes from the record root (groups
add none, an attributed element's text is `$`), which is walked here to the location path of
local names the breaker finds places by (`("policy", "holder", "name")`)."""

from __future__ import annotations

import math
import random
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from xmlschema.utils.etree import etree_getpath

from app.generation.model import FieldTree, Kind, Node
from app.generation.negative.constraints import Constraint
from app.generation.negative.rule_breaks import RULE_KEYWORDS, Field, RuleChecks, describe, offered_key
from app.generation.negative.xsd_judge import local_path
from app.generation.negative.xsd_record import Place, places, split, write
from app.generation.negative.xsd_scope import record_errors
from app.generation.writers.xml import XSI_NS

MAX_CANDIDATES = 12  # values tried per location
MAX_PLACES = 3  # locations tried per rule and record
_NIL = f"{{{XSI_NS}}}nil"


@dataclass(frozen=True)
class _Where:
    """A rule field's location: local names from the record root, whether it lies under a
    repeated element (no unique break: as for JSON, a duplicate of another record's one value)
    and whether it is a nillable element."""

    template: tuple[str, ...]
    repeated: bool
    nillable: bool


def _local(name: str) -> str:
    return ("@" if name.startswith("@") else "") + name.lstrip("@").rsplit(":", 1)[-1]


def _xsd_fields(tree: FieldTree, root_name: str) -> dict[str, tuple[Field, _Where]]:
    """Each field path (as rules name them) -> its field (value node, the component path as the
    schema pointer) and location, the shortest found (REF definitions followed)."""
    out: dict[str, tuple[Field, _Where]] = {}

    def walk(node: Node, dotted: str, template: tuple[str, ...], repeated: bool, parent_nil: bool, depth: int) -> None:
        if depth > 24:
            return
        if node.kind is Kind.REF and node.ref in tree.definitions:
            walk(tree.definitions[node.ref], dotted, template, repeated, parent_nil, depth + 1)
            return
        if node.kind is Kind.ARRAY:
            if node.items is not None and not (node.xml and node.xml.list_value):  # a list's items share one text
                walk(node.items, dotted, template, True, parent_nil, depth + 1)
            return
        # a definition's nodes carry the path of the place they were built at: only that place
        if node.path == dotted and (dotted not in out or len(out[dotted][1].template) > len(template)):
            # an attributed element's text (`$`) is nil when its element is
            nil = (parent_nil if node.name == "$" else node.nullable) and not template[-1].startswith("@")
            out[dotted] = (Field(template, node, "/" + "/".join(template)), _Where(template, repeated, nil))
        for child in (*node.children, *node.options):
            name = child.name
            if not name:  # a group, or a union's member type: the same place
                walk(child, dotted, template, repeated, parent_nil, depth + 1)
                continue
            step = (*template, _local(name)) if name != "$" else template
            walk(child, f"{dotted}.{name}" if dotted else name, step, repeated, node.nullable, depth + 1)

    walk(tree.root, "", (root_name,), False, False, 0)
    return out


def value_of(kind: Kind, text: str | None) -> Any:
    """A text of the record as the value a rule judges (rule_breaks works on JSON values)."""
    if text is None:
        return None
    try:
        if kind is Kind.INTEGER:
            return int(text.strip())
        if kind is Kind.NUMBER:
            d = Decimal(text.strip())
            return int(d) if d.is_finite() and d == d.to_integral_value() else float(d)
    except (ValueError, InvalidOperation):
        return text
    if kind is Kind.BOOLEAN and text.strip() in ("true", "false", "1", "0"):
        return text.strip() in ("true", "1")
    return text


def text_of(value: Any) -> str | None:
    """A candidate value as XSD lexical text (None: xsi:nil)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "INF" if value > 0 else "-INF"
        return format(Decimal(repr(value)), "f")
    return str(value)


def _read(place: Place) -> str | None:
    el = place.element
    if place.attribute:
        return el.get(place.attribute, "")
    return None if el.get(_NIL) in ("true", "1") else (el.text or "")


def _change(place: Place, text: str | None) -> Callable[[ET.Element], None]:
    def change(el: ET.Element) -> None:
        if place.attribute:
            el.set(place.attribute, text or "")
        elif text is None:
            el.text = None
            el.set(_NIL, "true")
        else:
            el.text = text or None  # as an empty element's text parses

    return change


class XsdRules:
    """The rules of one XSD record root: their breakable constraints and how to break each."""

    def __init__(self, tree: FieldTree, rules: Sequence[Any], root_name: str) -> None:
        fields = _xsd_fields(tree, root_name)
        self.checks = RuleChecks(tree, rules, fields={path: f for path, (f, _w) in fields.items()})
        self._where = {path: w for path, (_f, w) in fields.items()}

    def constraints(self) -> list[Constraint]:
        out = []
        for i, rule, f in self.checks.fields:
            where = self._where[f.node.path]
            for key in RULE_KEYWORDS:
                if (key == "unique" and where.repeated) or (key == "null_rate" and not where.nillable):
                    continue
                if offered_key(rule, key, ()):
                    out.append(Constraint(where.template, key, f.pointer, rule=i, extra={"rule": rule, "field": f}))
        return out

    def attempt(
        self, breaker: Any, c: Constraint, record: str, rng: random.Random, index: int
    ) -> tuple[str, str, str] | None:
        """(the record's text breaking rule c.rule's key c.keyword alone, the value's location path,
        a sentence) or None when this record cannot (the location is absent, or every candidate
        breaks the XSD or another rule of the field). `breaker`: the XsdBreaker (its parsed
        records, copies and earlier records)."""
        root = breaker.tree(record)
        found = places(root, _names(c)) if root is not None else []
        if root is None or not found:
            return None
        kind = c.extra["field"].node.kind
        picks = rng.sample(range(len(found)), min(MAX_PLACES, len(found))) if len(found) > 1 else [0]
        for k in picks:
            place = found[k]
            old = _read(place)
            tried = 0
            for text in self._candidates(breaker, c, kind, old, k, index):
                if text == old or tried >= MAX_CANDIDATES:
                    if tried >= MAX_CANDIDATES:
                        break
                    continue
                tried += 1
                value = value_of(kind, text)
                if (c.keyword == "unique" and value is None) or not self.checks.keeps_others(c, value):
                    continue
                new = breaker.edit(root, place, _change(place, text))
                try:
                    if record_errors(breaker.element, new):
                        continue
                except Exception:  # a change xmlschema cannot judge is not used
                    continue
                at = _pointer(new, place)
                return write(new), at, f"{at}: {describe(c.keyword, c.extra['rule'], value)}"[:300]
        return None

    def _candidates(
        self, breaker: Any, c: Constraint, kind: Kind, old: str | None, k: int, index: int
    ) -> Iterator[str | None]:
        if c.keyword == "unique":  # the value at the same place of an earlier record, nearest first
            for peer in breaker.peers(index):
                tree = breaker.tree(peer)
                there = places(tree, _names(c)) if tree is not None else []
                if there:
                    yield _read(there[k] if k < len(there) else there[0])
            return
        for value in self.checks.candidates(c, value_of(kind, old), (), ()):
            if value is not None or c.keyword == "null_rate":
                yield text_of(value)


def _names(c: Constraint) -> tuple[str, ...]:
    return tuple(str(s) for s in c.template)  # an XSD template holds local names only


def _pointer(root: ET.Element, place: Place) -> str:
    """The location path of `place` in `root` (a copy of the record `place` was found in), as
    xmlschema reports one: local names, positions where siblings share the name."""
    index = [list(parent).index(child) for parent, child in zip(place.chain, place.chain[1:], strict=False)]
    el = root
    for i in index:
        el = el[i]
    path = local_path(etree_getpath(el, root, relative=False, add_position=True))
    return path + (f"/@{split(place.attribute)[1]}" if place.attribute else "")
