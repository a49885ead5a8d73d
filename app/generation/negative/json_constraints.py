"""The breakable constraints of a JSON Schema record root, read off the schema itself (so each
has its schema pointer and the validator's keyword name).

Walked: properties, items / prefixItems (and draft-4..2019 item arrays), allOf and $ref (local
JSON Pointer references; recursion stops at a reference already on the path). Not walked: the
branches of anyOf/oneOf, if/then/else, not, contains, patternProperties, additionalProperties
schemas and dependentSchemas: a keyword in there does not decide the record's validity alone
(the applicator itself is offered instead where it can be broken: oneOf, anyOf, not)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

from app.generation.negative.constraints import Constraint
from app.generation.negative.instance import ANY_ITEM, Step, escape

MAX_DEPTH = 24
MAX_CONSTRAINTS = 4000

# keywords whose (location, keyword) is offered when the schema holds them
_VALUE_KEYWORDS = (
    "type",
    "enum",
    "const",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "required",
    "additionalProperties",
    "unevaluatedProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependencies",
    "oneOf",
    "anyOf",
    "not",
)


def _offered(schema: dict[str, Any], keyword: str, version: str, formats: frozenset[str]) -> bool:
    value = schema[keyword]
    if keyword in ("additionalProperties", "unevaluatedProperties"):
        return value is False
    if keyword == "uniqueItems":
        return value is True
    if keyword == "format":
        return isinstance(value, str) and value in formats
    if keyword in ("exclusiveMinimum", "exclusiveMaximum"):
        # draft 4: a boolean modifier of minimum/maximum (which the validator names)
        return not isinstance(value, bool) and isinstance(value, int | float)
    if keyword in ("minContains", "maxContains"):
        return "contains" in schema and version in ("2019-09", "2020-12")
    if keyword == "contains":
        return schema.get("minContains") != 0
    if keyword == "required":
        return isinstance(value, list) and bool(value)
    if keyword == "dependencies":
        return isinstance(value, dict) and any(isinstance(v, list) and v for v in value.values())
    if keyword == "dependentRequired":
        return isinstance(value, dict) and any(v for v in value.values())
    if keyword == "type":
        return value not in ([], "any")
    if keyword in ("oneOf", "anyOf"):
        return isinstance(value, list) and bool(value)
    return True


def json_constraints(
    contents: Any, resolver: Any, base_uri: str, version: str, formats: frozenset[str], root_pointer: str
) -> list[Constraint]:
    """The breakable constraints under a record root (`contents`, found at `root_pointer`)."""
    out: list[Constraint] = []
    seen: set[tuple[str, str, tuple[Step, ...]]] = set()
    for c in _walk(contents, resolver, base_uri, version, formats, (), root_pointer, (root_pointer,), 0):
        key = (c.schema_pointer, c.keyword, c.template)
        if key in seen:
            continue
        seen.add(key)
        out.append(c)
        if len(out) >= MAX_CONSTRAINTS:
            break
    return out


def _local_pointer(ref: str, base_uri: str) -> str | None:
    """The JSON Pointer a reference names in the uploaded document, None when it is not local."""
    uri, hash_, fragment = ref.partition("#")
    if uri not in ("", base_uri):
        return None
    if not hash_ or not fragment:
        return ""
    return unquote(fragment) if fragment.startswith("/") else None


def _walk(
    schema: Any,
    resolver: Any,
    base_uri: str,
    version: str,
    formats: frozenset[str],
    template: tuple[Step, ...],
    pointer: str,
    refs: tuple[str, ...],
    depth: int,
) -> Iterator[Constraint]:
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return
    for keyword in _VALUE_KEYWORDS:
        if keyword in schema and _offered(schema, keyword, version, formats):
            yield Constraint(template, keyword, f"{pointer}/{keyword}", schema, resolver)

    def deeper(sub: Any, steps: tuple[Step, ...], where: str) -> Iterator[Constraint]:
        yield from _walk(sub, resolver, base_uri, version, formats, template + steps, where, refs, depth + 1)

    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = _local_pointer(ref, base_uri)
        if target is not None and target not in refs:
            try:
                resolved = resolver.lookup(ref)
            except Exception:  # an unresolvable reference: nothing to walk (checked at load)
                resolved = None
            if resolved is not None:
                yield from _walk(
                    resolved.contents,
                    resolved.resolver,
                    base_uri,
                    version,
                    formats,
                    template,
                    target,
                    (*refs, target),
                    depth + 1,
                )
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, sub in props.items():
            yield from deeper(sub, (name,), f"{pointer}/properties/{escape(name)}")
    prefix = schema.get("prefixItems")
    if isinstance(prefix, list):
        for i, sub in enumerate(prefix):
            yield from deeper(sub, (i,), f"{pointer}/prefixItems/{i}")
    items = schema.get("items")
    if isinstance(items, dict):
        # items after a prefix (2020-12) start at len(prefixItems): ANY_ITEM over-matches, the
        # break is then refused by the check and another constraint tried
        if not isinstance(prefix, list):
            yield from deeper(items, (ANY_ITEM,), f"{pointer}/items")
    elif isinstance(items, list):
        for i, sub in enumerate(items):
            yield from deeper(sub, (i,), f"{pointer}/items/{i}")
    all_of = schema.get("allOf")
    if isinstance(all_of, list):
        for i, sub in enumerate(all_of):
            yield from _walk(
                sub, resolver, base_uri, version, formats, template, f"{pointer}/allOf/{i}", refs, depth + 1
            )
