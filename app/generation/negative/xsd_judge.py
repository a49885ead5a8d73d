"""The "exactly one" rule of negative XSD records, judged by xmlschema.

Each xmlschema validation error is read as (location path, keyword): the path with namespaces
dropped (`/policy/holder[2]/name`; an attribute's error, reported at its element, gets
`/@channel`), the keyword from the component that failed (a facet's name, `type` for the simple
type itself, `use` for a missing required attribute, `fixed`, `nillable`, `ID` for a repeated xs:ID value
(reported at its second occurrence), and for a content
model error `minOccurs`, `maxOccurs` or `choice`: xmlschema names the group, not which of the
three, so a content model error stands for all three; a built-in type's own pattern, with which
xmlschema checks the lexical space of xs:float or xs:NCName, stands for `pattern` and `type`).
A record breaks exactly the labelled constraint when every error is at the labelled location
(or at the labelled attribute's element, for an error of that attribute) and the labelled
keyword is among them. The engine checks each record it breaks with this; the tests check
every label with it."""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import repeat
from typing import Any

from xmlschema.names import XSD_NAMESPACE

FACETS = {
    "XsdPatternFacets": "pattern",
    "XsdEnumerationFacets": "enumeration",
    "XsdLengthFacet": "length",
    "XsdMinLengthFacet": "minLength",
    "XsdMaxLengthFacet": "maxLength",
    "XsdMinInclusiveFacet": "minInclusive",
    "XsdMaxInclusiveFacet": "maxInclusive",
    "XsdMinExclusiveFacet": "minExclusive",
    "XsdMaxExclusiveFacet": "maxExclusive",
    "XsdTotalDigitsFacet": "totalDigits",
    "XsdFractionDigitsFacet": "fractionDigits",
}
CONTENT = frozenset({"minOccurs", "maxOccurs", "choice"})  # what a content model error may be
_NS = re.compile(r"\{[^}]*\}")
_PREFIX = re.compile(r"(?<=/)[A-Za-z_][\w.\-]*:")
_ATTR = re.compile(r"^attribute ([^\s=]+)=")
_MISSING = re.compile(r"^missing required attribute '([^']+)'")


def local_path(path: str | None) -> str:
    """xmlschema's error path with namespaces (or prefixes) dropped: `/policy/holder[2]/name`."""
    if not path:
        return ""
    return _PREFIX.sub("", _NS.sub("", path))


def _local(name: str) -> str:
    return _NS.sub("", name).rsplit(":", 1)[-1]


def read_error(error: Any, path: str | None = None) -> tuple[str, frozenset[str]]:
    """(location path, the keywords the error may be) of one xmlschema validation error; `path`:
    its path in the whole record when the error is from validating one element of it (xmlschema
    then reports the path from that element)."""
    path = local_path(path if path is not None else getattr(error, "path", None))
    reason = str(getattr(error, "reason", None) or "")
    kind = type(getattr(error, "validator", None)).__name__
    attr = _ATTR.match(reason)
    if attr:
        path = f"{path}/@{_local(attr.group(1))}"
    if "duplicated xs:ID value" in reason:  # the ID's own type reports it
        return path, frozenset({"ID"})
    missing = _MISSING.match(reason)
    if missing:
        return f"{path}/@{_local(missing.group(1))}", frozenset({"use"})
    if kind == "XsdPatternFacets" and getattr(error.validator, "target_namespace", None) == XSD_NAMESPACE:
        # a built-in type's own pattern (xmlschema checks xs:float's lexical space with one,
        # beside its conversion error): a break of the type
        return path, frozenset({"pattern", "type"})
    if kind in FACETS:
        return path, frozenset({FACETS[kind]})
    if kind == "XsdGroup":
        return path, CONTENT
    if kind == "XsdElement":
        if "fixed value" in reason:
            return path, frozenset({"fixed"})
        if "nillable" in reason:
            return path, frozenset({"nillable"})
        return path, frozenset({"element"})
    if kind == "XsdAttribute" and "fixed value" in reason:
        return path, frozenset({"fixed"})
    if "Simple" in kind or "Atomic" in kind or kind in ("XsdList", "XsdUnion"):
        return path, frozenset({"type"})
    return path, frozenset({kind or "unknown"})


def judge_xsd(
    errors: Iterable[Any], pointer: str, keyword: str, paths: Iterable[str | None] | None = None
) -> tuple[str | None, Any]:
    """(None, the labelled error) when `errors` (xmlschema errors of one record, its element
    validated by its declaration) are the break of `keyword` at `pointer` alone; else (why not, None).
    `paths`: the errors' paths in the whole record (see read_error), when not their own."""
    found = None
    for error, path in zip(errors, paths or repeat(None), strict=False):
        at, keywords = read_error(error, path)
        if at == pointer and keyword in keywords:
            found = found or error
            continue
        return f"xmlschema also reports {'/'.join(sorted(keywords))} at {at or '(root)'}", None
    if found is None:
        return f"xmlschema reports no {keyword!r} error at {pointer}", None
    return None, found
