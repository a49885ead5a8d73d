"""What a broken XSD record is validated on: the element its break changed, alone, wherever that
tells what validating the whole record would (xmlschema reads a whole record in about half a
millisecond, most of the cost of a break). xsd_breaker judges the errors either way.

A value, nillable or use break changes one element's text or attributes, a minOccurs,
maxOccurs or choice break the children of one element: its declaration validates it alone, with
its children skipped where each is one of the valid record's (or a copy of one) and its tag can
match only the particle it matched there (no wildcard in the content model, no other particle or
substitute of that name): such a child is as valid as it was, so only the element's own text,
attributes and content model are checked. Either is safe only when nothing reaches across elements:
XSD 1.0 (no assertion or type alternative), no xs:key/unique/keyref at or above the element, no
ID/IDREF/ENTITY value (in the changed value for a value break; anywhere in the record for a
content break, whose removed or copied children may hold one, decided once per record root),
no xsi:type on an ancestor (per record). Otherwise the whole record is validated, as a document
of its own (record_errors: xmlschema checks xs:ID uniqueness and IDREF targets only then)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

from xmlschema.namespaces import NamespaceMapper
from xmlschema.utils.etree import etree_getpath
from xmlschema.validators import XsdElement, XsdGroup
from xmlschema.validators.validation import ValidationContext

from app.generation.negative.constraints import Constraint
from app.generation.negative.xsd_record import Place
from app.generation.writers.xml import XSI_NS

VALUE_KEYWORDS = frozenset({"nillable", "use"})  # with the facets, type and fixed (xsd_breaker)
CONTENT_KEYWORDS = frozenset({"minOccurs", "maxOccurs", "choice"})
MAX_VERDICTS = 20_000  # shapes whose errors are remembered (Scopes._verdicts), per record root
MAX_WALK = 20_000  # declarations walked to tell whether a record holds an ID; past it: assume it does
_XSI_TYPE = f"{{{XSI_NS}}}type"
_DOCUMENT_TYPES = frozenset(
    {"ID", "IDREF", "IDREFS", "ENTITY", "ENTITIES"}
)  # values checked across the record


def _local_name(name: str | None) -> str:
    return (name or "").rsplit("}", 1)[-1]


def document_wide(stype: Any) -> bool:
    """Whether values of `stype` (or its item or member types) are checked across the document
    (xs:ID, IDREF, ENTITY and what derives from them): their change is seen elsewhere."""
    return derives_from(stype, _DOCUMENT_TYPES)


def derives_from(stype: Any, names: frozenset[str]) -> bool:
    """Whether `stype`, a type it derives from or its item or member types is a built-in named
    in `names` (local names: "ID"); True when too deep to tell."""
    todo, seen = [stype], set[int]()
    while todo and len(seen) < 64:
        t = todo.pop()
        if t is None or id(t) in seen:
            continue
        seen.add(id(t))
        if _local_name(getattr(t, "name", None)) in names:
            return True
        todo.extend(getattr(t, a, None) for a in ("base_type", "item_type"))
        todo.extend(getattr(t, "member_types", None) or ())
    return bool(todo)  # too deep to tell: treat as document-wide


def record_errors(element: XsdElement, doc: ET.Element) -> list[Any]:
    """xmlschema's errors of the record `doc` validated as a document whose root `element` is
    (as `XMLSchema.iter_errors` does, which needs a global element): with the xs:ID values
    counted across the record and every IDREF's target looked for in it. A component's own
    `iter_errors` counts neither: a repeated child's copied ID would pass it."""
    source = element.maps.settings.get_resource_from_data(doc, element.tag)
    context = ValidationContext(
        source=source, converter=NamespaceMapper(None, source=source), check_identities=True
    )
    element.raw_decode(doc, "lax", context)
    for value, count in list(context.id_map.items()):
        if count == 0:  # collected into context.errors
            context.validation_error("lax", element, f"IDREF {value!r} not found in the record", doc)
    return list(context.errors)


def holds_document_wide(element: XsdElement) -> bool:
    """Whether a record of `element` may hold a value checked across the document: an element or
    attribute of such a type anywhere below it (substitutes included), or a wildcard (whose
    content is not known here)."""
    todo: list[Any] = [element]
    seen = set[int]()
    while todo:
        el = todo.pop()
        if id(el) in seen:
            continue
        seen.add(id(el))
        if len(seen) > MAX_WALK or not isinstance(el, XsdElement) or el.attributes.get(None) is not None:
            return True  # too large to tell, a wildcard element, or an attribute wildcard
        t: Any = el.type
        simple = t if t.is_simple() else t.content if t.has_simple_content() else None
        if simple is not None and document_wide(simple):
            return True
        if any(document_wide(getattr(a, "type", None)) for a in el.attributes.values()):
            return True
        content = getattr(t, "content", None)
        if isinstance(content, XsdGroup):
            todo.extend(content.iter_elements())
        todo.extend(el.iter_substitutes())  # what the generator may write in its place
    return False


@dataclass(frozen=True)
class Scope:
    """The declaration a break's element is validated by, the child particle each tag can only
    match (those children are skipped: see the module's docstring), and whether the break is of
    the element's children (`content`) or of its own text or attributes."""

    decl: Any
    children: dict[str, Any]
    content: bool = False


def _unique_children(decl: XsdElement) -> dict[str, Any]:
    """tag -> the one particle of `decl`'s content model a child of that tag can match; empty
    when the model has a wildcard (a child may match it instead)."""
    content = getattr(decl.type, "content", None)
    particles = list(content.iter_elements()) if isinstance(content, XsdGroup) else []
    elements = [p for p in particles if isinstance(p, XsdElement)]
    if len(elements) != len(particles):
        return {}
    out: dict[str, Any] = {}
    for p in elements:
        if p.name and not p.abstract and sum(q.is_matching(p.name) for q in elements) == 1:
            out[p.name] = p
    return out


class Scopes:
    """The scope of each constraint of one record root, decided once per constraint."""

    def __init__(self, element: XsdElement, value_keywords: frozenset[str]) -> None:
        self.element = element
        self.value_keywords = value_keywords | VALUE_KEYWORDS
        self._scopes: dict[Constraint, Scope | None] = {}
        self._holds_ids: bool | None = None
        # an element's shape (see _shape) -> its errors, when they are all at the element
        self._verdicts: dict[tuple[Any, ...], list[Any]] = {}

    def scope(self, c: Constraint) -> Scope | None:
        """`c`'s scope; None: validate the whole record."""
        if c not in self._scopes:
            self._scopes[c] = self._decide(c)
        return self._scopes[c]

    def _decide(self, c: Constraint) -> Scope | None:
        decl = c.extra.get("decl")
        if decl is None or c.extra.get("keyed") or self.element.xsd_version != "1.0":
            return None
        if c.keyword in self.value_keywords:
            return None if document_wide(c.extra.get("stype")) else Scope(decl, _unique_children(decl))
        if c.keyword in CONTENT_KEYWORDS:
            if self._holds_ids is None:
                self._holds_ids = holds_document_wide(self.element)
            return None if self._holds_ids else Scope(decl, _unique_children(decl), content=True)
        return None

    def errors(
        self, c: Constraint, doc: ET.Element, place: Place
    ) -> tuple[list[Any], list[str | None] | None]:
        """xmlschema's errors of the record `doc` (as parsed from its text) and, when only the
        changed element was validated, their paths in the whole record."""
        scope = self.scope(c)
        if scope is None:
            return record_errors(self.element, doc), None
        chain = [doc]  # the changed element's ancestors in `doc`, then itself
        for parent, child in zip(place.chain, place.chain[1:], strict=False):
            chain.append(chain[-1][list(parent).index(child)])
        target = chain[-1]
        if target.tag != scope.decl.name or any(_XSI_TYPE in e.attrib for e in chain[:-1]):
            return record_errors(self.element, doc), None  # another declaration may apply
        key = _shape(scope, target)
        errors = self._verdicts.get(key)
        if errors is None:
            errors, alike = _validate(scope, target)
            if alike and all(e.elem is target and e.reason for e in errors):
                if len(self._verdicts) >= MAX_VERDICTS:
                    self._verdicts.clear()
                self._verdicts[key] = errors
        elif errors:  # the remembered errors are all at the element: their path is its path here
            path = etree_getpath(target, doc, errors[0].namespaces, relative=False, add_position=True)
            return errors, [path] * len(errors)
        paths = [
            etree_getpath(e.elem, doc, e.namespaces, relative=False, add_position=True)
            if e.elem is not None
            else None
            for e in errors
        ]
        if any(p is None for p in paths) or any(not getattr(e, "reason", None) for e in errors):
            return record_errors(self.element, doc), None  # an error told only by the whole record
        return errors, paths


def _shape(scope: Scope, target: ET.Element) -> tuple[Any, ...]:
    """What the validation of `target` by `scope` depends on when its children are skipped (see
    _validate; a leaf has none): its text, its children's tags and tails and, for a value break,
    its attributes (a content break's are the valid record's)."""
    children = tuple((ch.tag, ch.tail) for ch in target)
    if scope.content:
        return (id(scope.decl), target.text, children)
    return (id(scope.decl), target.text, children, tuple(target.attrib.items()))


def _validate(scope: Scope, target: ET.Element) -> tuple[list[Any], bool]:
    """xmlschema's errors of `target` validated by the scope's declaration (its children as
    they were in the valid record, or copies of them, skipped where each can match one particle
    only), and whether every element below it was skipped (the errors are then the element's own,
    of its text, attributes and child tags)."""
    if not len(target):
        return list(scope.decl.iter_errors(target)), True
    if not scope.children:
        return list(scope.decl.iter_errors(target)), False
    kids, particles = set(target), scope.children
    validated: list[ET.Element] = []

    def hook(elem: ET.Element, xsd_element: Any) -> bool:
        """Skip a child matched to the one particle its tag can match (valid as before)."""
        if elem in kids and particles.get(elem.tag) is xsd_element:
            return True
        if elem is not target:
            validated.append(elem)
        return False

    errors = list(scope.decl.iter_errors(target, validation_hook=hook))
    return errors, not validated
