"""What sibling keywords take away before anything is drawn: types a `not: {type}` forbids, enum
values no allowed type holds, and properties an `additionalProperties` of one combined schema
(allOf member, $ref target, anyOf/oneOf branch laid over its base) forbids or constrains."""

from __future__ import annotations

import re
from typing import Any

import regex

from app.generation.model import Kind, Node
from app.generation.schema.ecma_regex import translate_ecma_pattern

# the phrase in Node.unsupported that marks a schema no value can satisfy (the compiler leaves
# such a node out where the schema allows it, and fails naming it where it is required)
DEAD = "no value is valid"
ALL_TYPES = frozenset({"string", "integer", "number", "boolean", "object", "array", "null"})
_ANNOTATIONS = frozenset({"title", "description", "$comment", "examples", "default"})

Part = tuple[Any, Any]


def fits_kind(value: Any, kind: Kind) -> bool:
    if kind in (Kind.STRING, Kind.DATE, Kind.DATETIME, Kind.TIME):
        return isinstance(value, str)
    if kind is Kind.INTEGER:
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if kind is Kind.NUMBER:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind is Kind.BOOLEAN:
        return isinstance(value, bool)
    if kind is Kind.NULL:
        return value is None
    if kind is Kind.OBJECT:
        return isinstance(value, dict)
    if kind is Kind.ARRAY:
        return isinstance(value, list)
    return True


def value_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object" if isinstance(value, dict) else "array"


def dead_reason(node: Node) -> str | None:
    return next((u for u in node.unsupported if DEAD in u), None)


def why_dead(node: Node) -> str:
    """The dead reason without the marker phrase, for a note on the parent (which must stay alive)."""
    reason = dead_reason(node) or "it cannot be satisfied"
    return reason.replace(f": {DEAD}", "").replace(DEAD, "it cannot be satisfied")


def negated_types(flat: list[Part]) -> set[str]:
    """Types ruled out by a `not` that names whole types: `{"type": ...}` alone, or an `anyOf` of
    such schemas alone (`not: {anyOf: [{type: integer}, {type: boolean}]}`)."""
    out: set[str] = set()
    for schema, _ in flat:
        sub = schema.get("not")
        out |= _whole_types(sub) or set()
        if isinstance(sub, dict) and set(sub) - _ANNOTATIONS <= {"enum", "const"} and _lists_null(sub):
            out.add("null")  # null is the one value of its type: null rows are never re-drawn
    if "number" in out:
        out.add("integer")
    return out


def _lists_null(sub: dict[str, Any]) -> bool:
    return ("const" in sub and sub["const"] is None) or (isinstance(sub.get("enum"), list) and None in sub["enum"])


def _whole_types(sub: Any) -> set[str] | None:
    """The types every value of which `sub` accepts, when it accepts nothing else; else None."""
    if not isinstance(sub, dict):
        return None
    rest = set(sub) - _ANNOTATIONS
    if rest == {"type"}:
        t = sub["type"]
        names = {t} if isinstance(t, str) else {x for x in t if isinstance(x, str)} if isinstance(t, list) else set()
        return names & ALL_TYPES
    if rest == {"anyOf"} and isinstance(sub["anyOf"], list) and sub["anyOf"]:
        parts = [_whole_types(option) for option in sub["anyOf"]]
        if all(p is not None for p in parts):
            return set().union(*(p for p in parts if p is not None))
    return None


# the keywords a schema may hold beside if/then/else for `conditional_values` to read it
_CONDITIONAL_ONLY = frozenset({"if", "then", "else", "$schema", "$id", "$anchor", *_ANNOTATIONS})


def _listed(schema: Any) -> list[Any] | None:
    """The values a subschema allows when it lists them (const, enum; `false`: none), else None."""
    if schema is False:
        return []
    if isinstance(schema, dict):
        if "const" in schema:
            return [schema["const"]]
        if isinstance(schema.get("enum"), list):
            return list(schema["enum"])
    return None


def conditional_values(flat: list[Part]) -> list[Any] | None:
    """Values to draw for an untyped schema made of if/then/else alone whose branches list their
    values (`if: true, then: {const: a}, else: {const: b}`), instead of the object its `if` once
    made it: the `then` branch's values (the `if`'s own when `then` is absent) and the `else`
    branch's. Each instance of the schema is one of them or of neither branch's, so those drawn
    are valid once the conditions (negations) filter them; None when a branch lists nothing."""
    if len(flat) != 1:
        return None
    schema = flat[0][0]
    if not isinstance(schema, dict) or "if" not in schema or not ({"then", "else"} & schema.keys()):
        return None
    if not schema.keys() <= _CONDITIONAL_ONLY:
        return None
    through_then = _listed(schema["then"]) if "then" in schema else _listed(schema["if"])
    if through_then is None and "then" in schema:
        through_then = _listed(schema["if"])
    through_else = _listed(schema["else"]) if "else" in schema else None
    if through_then is None and through_else is None:
        return None
    values = [*(through_then or []), *(through_else or [])]
    return values or None


# a property name a pattern backtracks on for longer is taken as not matching here: the guard,
# which checks every record with its own budget, then fails the run naming the name and pattern
_NAME_MATCH_BUDGET_S = 0.25


def _search(pattern: str, name: str) -> bool:
    try:
        translated = translate_ecma_pattern(pattern)
        return regex.search(translated, name, flags=regex.VERSION0, timeout=_NAME_MATCH_BUDGET_S) is not None
    except (ValueError, re.error, regex.error, TimeoutError):
        return False


def property_gates(
    flat: list[Part], properties: dict[str, list[Part]], required: list[str]
) -> tuple[list[str], list[str]]:
    """Apply each combined schema's `additionalProperties` to the properties the others declare.

    A property that schema does not declare (nor match by patternProperties) must be absent when
    it is `false`, and must also meet it when it is a schema (its part is added to the property's
    contributions). Removes forbidden optional properties from `properties`; returns (notes on
    left-out optional properties, dead reasons for forbidden required ones)."""
    for schema, resolver in flat:
        # patternProperties apply to declared properties too: a matching one meets both schemas
        pats = schema.get("patternProperties")
        if isinstance(pats, dict):
            for pattern, sub in pats.items():
                for prop in properties:
                    if _search(pattern, prop):
                        properties[prop].append((sub, resolver))
    if len(flat) < 2:
        return [], []
    notes: list[str] = []
    dead: list[str] = []
    for schema, resolver in flat:
        additional = schema.get("additionalProperties")
        if additional is not False and not isinstance(additional, dict):
            continue
        props = schema.get("properties")
        names = set(props) if isinstance(props, dict) else set()
        pats = schema.get("patternProperties")
        patterns = list(pats) if isinstance(pats, dict) else []
        for prop in list(properties):
            if prop in names or any(_search(p, prop) for p in patterns):
                continue
            if additional is not False:
                properties[prop].append((additional, resolver))
            elif prop in required:
                dead.append(
                    f"property {prop!r} is required, but 'additionalProperties: false' of a schema "
                    f"combined with it (allOf member, $ref or anyOf/oneOf base) forbids it: {DEAD}"
                )
            else:
                del properties[prop]
                notes.append(
                    f"property {prop!r} is left out: 'additionalProperties: false' of a schema "
                    f"combined with it (allOf member, $ref or anyOf/oneOf base) forbids it"
                )
    return notes, dead


def property_name_gates(
    flat: list[Part], properties: dict[str, list[Part]], required: list[str], validator_cls: Any
) -> tuple[list[str], list[str]]:
    """`propertyNames` applies to declared properties too: one whose name it refuses is left out
    (optional) or makes the object unsatisfiable (required). Returns (notes, dead reasons).
    Name schemas holding a $ref are not judged here (their generated keys still are)."""
    notes: list[str] = []
    dead: list[str] = []
    for schema, _ in flat:
        names = schema.get("propertyNames")
        if names is True or names is None or (isinstance(names, dict) and "$ref" in names):
            continue
        if names is False:
            check = None
        elif isinstance(names, dict):
            check = validator_cls(names, format_checker=validator_cls.FORMAT_CHECKER)
        else:
            continue
        for prop in list(properties):
            if check is not None and check.is_valid(prop):
                continue
            if prop in required:
                dead.append(f"property {prop!r} is required, but 'propertyNames' refuses its name: {DEAD}")
            else:
                del properties[prop]
                notes.append(f"property {prop!r} is left out: 'propertyNames' refuses its name")
    return notes, dead
