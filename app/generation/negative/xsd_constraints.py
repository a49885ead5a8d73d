"""The breakable constraints of an XSD record root, read from xmlschema's components.

From the record's element down (recursive content stops at MAX_DEPTH or where a type repeats on
its own path), each element or attribute of simple content offers its facets (pattern,
enumeration, length, minLength, maxLength, min/maxInclusive, min/maxExclusive, totalDigits,
fractionDigits, from its type and the types it restricts), `type` (text that is not of its
primitive type, when that is not a string), `fixed`, `ID` (an xs:ID value repeating another
one of the record); an element also `nillable` (when it is
not); an attribute `use` (when required); each child element whose count is fixed by its own
particle (every group around it occurs once, none a choice) `minOccurs` (when above 0) and
`maxOccurs` (when bounded); a choice that occurs once `choice` (its branch left out).
`schema_pointer` is the component's path: `/policy/holder/name/maxLength`, `/policy/@channel/use`,
`/policy/holder/maxOccurs`, `/policy/choice(a|b)/choice`. A maxOccurs constraint carries the
child's declaration (`particle`), a choice its branches' (`branches`): what their copies are
given fresh xs:ID values by (xsd_content.renew_ids). Each constraint also carries the
declaration of the element its break changes (`decl`: the element itself for a value, nillable
or use constraint, the parent for minOccurs, maxOccurs and choice) and whether an identity
constraint is declared at or above it (`keyed`): what xsd_scope needs to judge the break on
that element alone."""

from __future__ import annotations

from typing import Any

from xmlschema.names import XSD_NAMESPACE
from xmlschema.validators import XsdElement, XsdGroup

from app.generation.negative.constraints import Constraint
from app.generation.negative.xsd_scope import derives_from

MAX_DEPTH = 12
MAX_CONSTRAINTS = 4_000
MAX_OCCURS_ADDED = 10  # maxOccurs is offered when at most this many copies break it
FACET_KEYWORDS = (
    "pattern",
    "enumeration",
    "length",
    "minLength",
    "maxLength",
    "minInclusive",
    "maxInclusive",
    "minExclusive",
    "maxExclusive",
    "totalDigits",
    "fractionDigits",
)
_ID = frozenset({"ID"})
_STRING_PRIMITIVES = frozenset({"string", "anyURI", "anySimpleType", "anyAtomicType", "QName", "NOTATION"})


def _local(name: str | None) -> str:
    return (name or "").rsplit("}", 1)[-1].rsplit(":", 1)[-1]


def _facets(stype: Any) -> dict[str, Any]:
    """keyword -> facet of a simple type and the restrictions it derives from (the nearest wins)."""
    out: dict[str, Any] = {}
    t, seen = stype, 0
    while t is not None and seen < 20 and hasattr(t, "facets"):
        for tag, facet in (t.facets or {}).items():
            kw = _local(tag)
            # a built-in type's pattern (xs:float, xs:NCName) is its lexical space: the `type`
            # constraint, judged so (xsd_judge.read_error), not a second one
            builtin = kw == "pattern" and getattr(t, "target_namespace", None) == XSD_NAMESPACE
            if kw in FACET_KEYWORDS and facet is not None and kw not in out and not builtin:
                out[kw] = facet
        if getattr(t, "is_restriction", lambda: False)() is False:
            break
        t, seen = getattr(t, "base_type", None), seen + 1
    return out


def _simple(element: XsdElement) -> Any | None:
    t: Any = element.type
    if t.is_simple():
        return t
    if t.has_simple_content():
        return t.content
    return None


class _Walk:
    def __init__(self) -> None:
        self.out: list[Constraint] = []

    def add(self, template: tuple[str, ...], keyword: str, where: str, **extra: Any) -> None:
        if len(self.out) < MAX_CONSTRAINTS:
            self.out.append(Constraint(template, keyword, f"{where}/{keyword}", extra=extra))

    def value(self, template: tuple[str, ...], where: str, stype: Any, fixed: Any, **scope: Any) -> None:
        """The constraints of a simple value (an element's text or an attribute); `scope`: the
        declaration of the element holding it and whether an identity constraint is in force."""
        if stype is None or not stype.is_atomic():
            return
        for kw, facet in _facets(stype).items():
            self.add(template, kw, where, stype=stype, facet=facet, **scope)
        primitive = getattr(stype, "primitive_type", None)
        if primitive is not None and _local(primitive.name) not in _STRING_PRIMITIVES:
            self.add(template, "type", where, stype=stype, **scope)
        if fixed is not None:
            self.add(template, "fixed", where, stype=stype, fixed=str(fixed), **scope)
        if derives_from(stype, _ID) and fixed is None:
            self.add(template, "ID", where, stype=stype, **scope)

    def element(self, el: XsdElement, template: tuple[str, ...], types: tuple[int, ...], keyed: bool = False) -> None:
        """`keyed`: an xs:key/xs:unique/xs:keyref is declared on an element above this one (or on `el`, then)."""
        where = "/" + "/".join(template)
        keyed = keyed or bool(getattr(el, "identities", None))
        scope = {"decl": el, "keyed": keyed}
        stype = _simple(el)
        if stype is not None:
            self.value(template, where, stype, el.fixed, **scope)
            if not el.nillable:
                self.add(template, "nillable", where, stype=stype, **scope)
        for name, attr in (el.attributes or {}).items():
            if not name or not hasattr(attr, "use"):
                continue
            at = (*template, "@" + _local(name))
            at_where = f"{where}/@{_local(name)}"
            if attr.use == "required":
                self.add(at, "use", at_where, stype=attr.type, **scope)
            self.value(at, at_where, attr.type, attr.fixed, **scope)
        content = getattr(el.type, "content", None)
        if isinstance(content, XsdGroup) and len(template) < MAX_DEPTH and id(el.type) not in types:
            once = content.min_occurs == 1 and content.max_occurs == 1
            self.group(content, template, (*types, id(el.type)), once, scope)

    def group(
        self, group: XsdGroup, template: tuple[str, ...], types: tuple[int, ...], fixed: bool, scope: dict[str, Any]
    ) -> None:
        """`fixed`: every group from the element down to this one occurs exactly once; `scope`:
        the element whose content `group` is (its declaration, and `keyed` as `element` says)."""
        where = "/" + "/".join(template)
        if group.model == "choice":
            names = sorted({_local(e.name) for e in group.iter_elements() if isinstance(e, XsdElement)})
            if fixed and group.min_occurs >= 1 and names:
                branches = {_local(e.name): e for e in group.iter_elements() if isinstance(e, XsdElement)}
                self.add(
                    template, "choice", f"{where}/choice({'|'.join(names)})", names=tuple(names),
                    branches=branches, **scope,
                )
            fixed = False
        for item in group:
            if isinstance(item, XsdGroup):
                once = item.min_occurs == 1 and item.max_occurs == 1
                self.group(item, template, types, fixed and once, scope)
            elif isinstance(item, XsdElement) and not item.abstract:
                name = _local(item.name)
                child = (*template, name)
                if fixed and item.min_occurs >= 1:
                    at = f"{where}/{name}"
                    self.add(template, "minOccurs", at, child=name, bound=item.min_occurs, **scope)
                if fixed and item.max_occurs is not None and item.max_occurs >= item.min_occurs:
                    at = f"{where}/{name}"
                    self.add(template, "maxOccurs", at, child=name, bound=item.max_occurs, particle=item, **scope)
                self.element(item, child, types, scope["keyed"])


def xsd_constraints(element: XsdElement) -> list[Constraint]:
    """Every breakable (location, keyword) of records of `element` (see the module's docstring)."""
    walk = _Walk()
    walk.element(element, (_local(element.name),), ())
    return walk.out
