"""xs:unique and xs:key checked on an element's rendered XML with ElementTree, instead of
validating the whole element with xmlschema: what the identity re-draw of `xsd_tree` needs.

The generator draws every value valid by construction; only the identity constraints of an
element (values unique among the nodes a selector picks) depend on several values at once, so
the re-draw check of an element carrying them looks at those alone. xmlschema's full validation
of a 40 KB CycloneDX BOM costs ~0.3 s; this parse and lookup a millisecond.

Only plain constraints take this path (`IdentityCheck.of` returns None otherwise, and the element
keeps xmlschema): xs:unique/xs:key (no xs:keyref, no xs:assert) whose selector and fields are
ElementTree paths: steps of names, `prefix:name`, `*`, `prefix:*` or `.`, a leading `.//`,
alternatives with `|`, and a field ending in `@attribute` or an element. Values compare after
whitespace collapse and, when they read as numbers, as decimals: stricter than xmlschema's typed
equality (two values it finds different may count as equal here), never laxer, so a record this
check passes has no duplicate key for xmlschema either; the guard validates sampled records in full.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

_NAME = r"[A-Za-z_][\w.\-]*"
_STEP = re.compile(rf"^(?:\.|\*|(?:{_NAME}:)?(?:{_NAME}|\*))$")
_ATTR = re.compile(rf"^@(?:({_NAME}):)?({_NAME})$")
_NUMBER = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)$")


@dataclass(frozen=True)
class _Field:
    path: str | None  # ElementTree path to the element holding the value (None: the node itself)
    attribute: str | None  # `{ns}name` / `name`, or None for the element's text


@dataclass(frozen=True)
class _Identity:
    name: str
    selectors: tuple[str, ...]  # ElementTree paths, one per `|` alternative
    fields: tuple[_Field, ...]
    key: bool  # xs:key: every selected node must have every field


def _qualify(step: str, namespaces: dict[str, str]) -> str | None:
    if step in (".", "*"):
        return step
    prefix, _, local = step.rpartition(":")
    if not prefix:
        return local  # XSD 1.0: an unprefixed name in an XPath is in no namespace
    uri = namespaces.get(prefix)
    return None if uri is None else f"{{{uri}}}{local}"


def _element_path(path: str, namespaces: dict[str, str]) -> str | None:
    """An ElementTree path for one XSD selector alternative (or a field's element steps)."""
    path = path.replace(" ", "")
    descendants = path.startswith(".//")
    body = path[3:] if descendants else path.removeprefix("./")
    steps = body.split("/") if body else []
    if not steps or any(not _STEP.match(s) for s in steps):
        return None
    qualified = [_qualify(s, namespaces) for s in steps]
    if any(q is None for q in qualified):
        return None
    joined = "/".join(q for q in qualified if q is not None)
    return f".//{joined}" if descendants else joined


def _field(path: str, namespaces: dict[str, str]) -> _Field | None:
    path = path.replace(" ", "")
    head, _, last = path.rpartition("/")
    attr = _ATTR.match(last)
    if attr is None:
        elem = _element_path(path, namespaces)
        return None if elem is None or elem.startswith(".//") else _Field(elem, None)
    prefix, local = attr.groups()
    if prefix:
        uri = namespaces.get(prefix)
        if uri is None:
            return None
        name = f"{{{uri}}}{local}"
    else:
        name = local
    if not head or head == ".":
        return _Field(None, name)
    elem = _element_path(head, namespaces)
    return None if elem is None or elem.startswith(".//") else _Field(elem, name)


def _value(node: Any, field: _Field) -> tuple[bool, Any]:
    """(found, comparison key) of one field on one selected node; raises ValueError when the
    field selects more than one node (an error for xmlschema too)."""
    holders = [node] if field.path is None else node.findall(field.path)
    if len(holders) > 1:
        raise ValueError("a field selects more than one node")
    if not holders:
        return False, None
    holder = holders[0]
    raw = holder.get(field.attribute) if field.attribute is not None else holder.text or ""
    if raw is None:
        return False, None
    text = " ".join(raw.split())
    if _NUMBER.match(text):
        try:
            return True, ("n", Decimal(text).normalize())
        except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
            pass
    return True, ("s", text)


def _defaulted(element: Any, identities: list[_Identity]) -> bool:
    """Whether a field names an attribute or element that some declaration gives a default or
    fixed value: xmlschema compares that value where the instance leaves it out, which an
    ElementTree lookup would not see (and a wildcard element field could be any of them)."""
    from xmlschema.validators import XsdAttribute, XsdElement

    attributes = {f.attribute for i in identities for f in i.fields if f.attribute is not None}
    elements = {
        (f.path or "").rsplit("/", 1)[-1] for i in identities for f in i.fields if f.attribute is None
    }
    if any("*" in e or e in ("", ".") for e in elements):
        return True
    for component in element.maps.iter_components():
        kind = XsdAttribute if isinstance(component, XsdAttribute) else XsdElement
        names = attributes if kind is XsdAttribute else elements
        if (
            isinstance(component, (XsdAttribute, XsdElement))
            and component.name in names
            and (component.default is not None or component.fixed is not None)
        ):
            return True
    return False


class IdentityCheck:
    """The `xml_errors` of an XsdRecordValidator, for an element whose only cross-value
    constraints are plain xs:unique / xs:key (see the module docstring)."""

    def __init__(self, identities: list[_Identity]) -> None:
        self.identities = identities

    @classmethod
    def of(cls, element: Any) -> IdentityCheck | None:
        identities: list[_Identity] = []
        for identity in getattr(element, "identities", None) or ():
            kind = type(identity).__name__
            if kind not in ("XsdUnique", "XsdKey"):
                return None  # xs:keyref (values of other keys) stays with xmlschema
            selector = identity.selector
            if getattr(selector, "xpath_default_namespace", "") or any(
                getattr(f, "xpath_default_namespace", "") for f in identity.fields
            ):
                return None
            namespaces = dict(getattr(selector, "namespaces", None) or {})
            paths = [_element_path(alt, namespaces) for alt in str(selector.path).split("|")]
            fields = [_field(str(f.path), namespaces) for f in identity.fields]
            if not paths or not fields or any(p is None for p in paths) or any(f is None for f in fields):
                return None
            identities.append(
                _Identity(
                    str(identity.local_name or identity.name),
                    tuple(p for p in paths if p is not None),
                    tuple(f for f in fields if f is not None),
                    key=kind == "XsdKey",
                )
            )
        if not identities or _defaulted(element, identities):
            return None
        return cls(identities)

    def xml_errors(self, xml_texts: list[str]) -> Iterator[tuple[int, str]]:
        """(index, message) of each record among `xml_texts` that breaks a constraint."""
        for i, text in enumerate(xml_texts):
            err = self.error(ET.fromstring(text))
            if err:
                yield i, err

    def error(self, root: Any) -> str | None:
        for identity in self.identities:
            seen: set[tuple[Any, ...]] = set()
            visited: set[int] = set()  # a node two alternatives select counts once
            for path in identity.selectors:
                for node in root.iterfind(path):
                    if id(node) in visited:
                        continue
                    visited.add(id(node))
                    try:
                        found = [_value(node, f) for f in identity.fields]
                    except ValueError as exc:
                        return f"{identity.name}: {exc}"
                    if not all(ok for ok, _ in found):
                        if identity.key:
                            return f"{identity.name}: a selected element has no value for the xs:key"
                        continue
                    values = tuple(v for _, v in found)
                    if values in seen:
                        return f"{identity.name}: duplicate value {values!r}"
                    seen.add(values)
        return None
