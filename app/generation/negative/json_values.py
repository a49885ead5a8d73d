"""Candidate values that break one JSON Schema keyword at a location, given the valid value
there. Each candidate is checked afterwards (the subschema alone, then the whole record): these
only propose, most specific first (a string one longer than maxLength built from the value's own
characters, a number just past a bound on the multipleOf grid, a record minus one required
property), then a generic pool of values of every type."""

from __future__ import annotations

import math
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from app.generation.limits import MAX_FIELD_CHARS, VALUE_CHARS_FLOOR

_GENERIC: list[Any] = [None, True, 0, -1, 1.5, "", "x", "0", [], {}, [None], {"x": None}, False, 1]
_FILL = "a0A -_.!é"
# items or properties a break may add: past a huge maxItems/maxProperties the record would hold more
# than a field may cost one (app/generation/limits.py), so that break is not offered
MAX_ADDED_VALUES = MAX_FIELD_CHARS // VALUE_CHARS_FLOOR
_EXTRA_NAMES = ("extra", "unexpected", "x-extra", "_extra", "zz_extra", "EXTRA", "extra_1")
_BAD_NAMES = ("", " ", "!", "0", "A", "-", "Extra Key", "é", "a" * 300, "~", "$")
_BAD_FORMATS: dict[str, tuple[str, ...]] = {
    "email": ("no-at-sign.example.com", "a@", "@b.c", "a b@c.d"),
    "idn-email": ("no-at-sign.example.com", "a@"),
    "date": ("2023-02-30", "2023-13-01", "20230101", "not a date"),
    "date-time": ("2023-02-30T10:00:00Z", "2023-01-01 10:00", "2023-01-01T25:00:00Z", "nope"),
    "time": ("25:00:00Z", "10:61:00Z", "1000", "nope"),
    "ipv4": ("256.1.1.1", "1.2.3", "a.b.c.d", "1.2.3.4.5"),
    "ipv6": ("1:::1", "12345::", "g::1", "nope"),
    "uri": ("not a uri", "//no-scheme", "a b:c", ":"),
    "uri-reference": ("\\\\bad", "a b", "%zz"),
    "iri": ("not an iri", ":"),
    "iri-reference": ("\\\\bad", "%zz"),
    "uuid": ("not-a-uuid", "1234", "g" * 32),
    "hostname": ("-bad-.example", "a..b", "a" * 64 + ".com", "a b"),
    "idn-hostname": ("-bad-.example", "a..b"),
    "regex": ("[", "(", "a{2,1}"),
    "json-pointer": ("no-slash", "/~2"),
    "relative-json-pointer": ("/x", "-1"),
    "duration": ("P1Y2", "1Y", "PT", "P"),
    "uri-template": ("{", "{a"),
}


def _num(x: Decimal) -> int | float:
    return int(x) if x == x.to_integral_value() else float(x)


def _dec(x: Any) -> Decimal:
    return Decimal(str(x))


def _integers(schema: dict[str, Any]) -> bool:
    t = schema.get("type")
    return t == "integer" or (isinstance(t, list) and "integer" in t and "number" not in t)


def _below(bound: Decimal, inclusive: bool, step: Decimal | None, ints: bool) -> list[Decimal]:
    """Numbers just below `bound` (outside `>= bound`, or `> bound` when not inclusive)."""
    out: list[Decimal] = []
    if step:
        k = (bound / step).to_integral_value(rounding="ROUND_FLOOR")
        for j in (k, k - 1, k - 2):
            x = j * step
            if x < bound or (not inclusive and x == bound):
                out.append(x)
    if ints:
        x = bound.to_integral_value(rounding="ROUND_FLOOR")
        out += [x if not inclusive else x - 1, x - 1]
    else:
        out += ([] if inclusive else [bound]) + [bound - 1, bound - Decimal("0.5"), bound - Decimal("0.001")]
    return out


def _numbers(keyword: str, schema: dict[str, Any], value: Any) -> Iterator[Any]:
    step = _dec(schema["multipleOf"]) if isinstance(schema.get("multipleOf"), int | float) else None
    ints = _integers(schema) or (isinstance(value, int) and not isinstance(value, bool))
    bound = schema.get(keyword)
    if keyword in ("minimum", "exclusiveMinimum") and isinstance(bound, int | float):
        inclusive = keyword == "minimum" and schema.get("exclusiveMinimum") is not True
        for x in _below(_dec(bound), inclusive, step, ints):
            yield _num(x)
    elif keyword in ("maximum", "exclusiveMaximum") and isinstance(bound, int | float):
        inclusive = keyword == "maximum" and schema.get("exclusiveMaximum") is not True
        for x in _below(-_dec(bound), inclusive, step, ints):
            yield _num(-x)
    elif keyword == "multipleOf" and step and isinstance(value, int | float) and not isinstance(value, bool):
        v = _dec(value)
        for delta in (step / 2, -step / 2, Decimal(1), Decimal(-1), step / 3, Decimal("0.5")):
            x = v + delta
            if (x / step) != (x / step).to_integral_value():
                yield _num(x)


def _strings(keyword: str, schema: dict[str, Any], value: str) -> Iterator[str]:
    lo, hi = schema.get("minLength"), schema.get("maxLength")
    if keyword == "maxLength" and isinstance(hi, int):
        if hi + 1 > MAX_FIELD_CHARS:
            return  # a string past a bound this large is more than a record may hold: not offered
        base = value or "a"
        for fill in [base[-1], base[0], *_FILL]:
            yield (base + fill * (hi + 1))[: hi + 1]
        yield (base * (hi + 1))[: hi + 1]
        return
    if keyword == "minLength" and isinstance(lo, int) and lo > 0:
        yield value[: lo - 1]
        yield value[len(value) - lo + 1 :]
        yield value[:1] * (lo - 1)
        for fill in _FILL:
            yield fill * (lo - 1)
        return
    n = len(value)
    if keyword == "format":
        yield from _BAD_FORMATS.get(str(schema.get("format")), ())
    yield value + "!"
    yield "!" + value[1:] if value else "!"
    for fill in _FILL:
        if n:
            yield value[:-1] + fill
            yield fill + value[1:]
            yield value[: n // 2] + fill + value[n // 2 + 1 :]
        yield value + fill
    yield value[:-1]
    yield value[1:]
    yield value.upper()
    yield value.lower()
    yield value + value
    yield ""
    for fill in _FILL:
        yield fill * max(1, n)


def _properties(keyword: str, schema: dict[str, Any], value: dict[str, Any]) -> Iterator[dict[str, Any]]:
    required = set(schema.get("required") or ())
    if keyword == "required":
        for name in schema.get("required") or ():
            if name in value:
                yield {k: v for k, v in value.items() if k != name}
    elif keyword in ("dependentRequired", "dependencies"):
        for trigger, deps in (schema.get(keyword) or {}).items():
            if not isinstance(deps, list) or not deps:
                continue
            if trigger in value:
                for dep in deps:
                    if dep in value and dep not in required:
                        yield {k: v for k, v in value.items() if k != dep}
            elif any(dep not in value for dep in deps):
                # the trigger added, a dependency missing (the value must suit the trigger's schema)
                for extra in (*_GENERIC, value.get(trigger)):
                    yield {**value, trigger: extra}
    elif keyword in ("additionalProperties", "unevaluatedProperties"):
        for name in _EXTRA_NAMES:
            if name not in value:
                for extra in (None, "x", 0):
                    yield {**value, name: extra}
    elif keyword == "propertyNames":
        for name in _BAD_NAMES:
            if name not in value:
                for extra in (None, "x", 0, {}, [], True):
                    yield {**value, name: extra}
    elif keyword == "minProperties" and isinstance(schema.get("minProperties"), int):
        optional = [k for k in value if k not in required]
        drop = len(value) - schema["minProperties"] + 1
        if 0 < drop <= len(optional):
            gone = set(optional[-drop:])
            yield {k: v for k, v in value.items() if k not in gone}
            gone = set(optional[:drop])
            yield {k: v for k, v in value.items() if k not in gone}
    elif keyword == "maxProperties" and isinstance(schema.get("maxProperties"), int):
        add = schema["maxProperties"] + 1 - len(value)
        if 0 < add <= MAX_ADDED_VALUES:
            for extra in (None, "x", 0, {}, [], True):
                names = (f"extra_{i}" for i in range(10 * add + 10))
                out = dict(value)
                for name in names:
                    if len(out) >= len(value) + add:
                        break
                    if name not in out:
                        out[name] = extra
                yield out


def _arrays(keyword: str, schema: dict[str, Any], value: list[Any], matches: Any) -> Iterator[list[Any]]:
    if keyword == "minItems" and isinstance(schema.get("minItems"), int) and schema["minItems"] > 0:
        k = schema["minItems"] - 1
        yield value[:k]
        yield value[len(value) - k :] if k else []
    elif keyword == "maxItems" and isinstance(schema.get("maxItems"), int) and value:
        add = schema["maxItems"] + 1 - len(value)
        if 0 < add <= MAX_ADDED_VALUES:
            yield value + [value[-1]] * add
            yield value + [value[i % len(value)] for i in range(add)]
    elif keyword == "uniqueItems" and value:
        if len(value) >= 2:
            yield [value[0], value[0], *value[2:]]
            yield [*value[:-1], value[0]]
        yield [*value, value[0]]
        yield [value[0], *value]
    elif keyword == "contains":
        yield [v for v in value if not matches(v)]
    elif keyword == "minContains" and isinstance(schema.get("minContains"), int):
        keep = schema["minContains"] - 1
        out, kept = [], 0
        for v in value:
            if matches(v):
                if kept >= keep:
                    continue
                kept += 1
            out.append(v)
        yield out
    elif keyword == "maxContains" and isinstance(schema.get("maxContains"), int):
        hits = [v for v in value if matches(v)]
        if hits and schema["maxContains"] + 1 - len(hits) <= MAX_ADDED_VALUES:
            yield value + [hits[0]] * (schema["maxContains"] + 1 - len(hits))


def _others(keyword: str, schema: dict[str, Any], value: Any) -> Iterator[Any]:
    """enum / const / type / oneOf / anyOf / not: values near the valid one, then the pool."""
    if keyword == "enum":
        for e in schema.get("enum") or ():
            if isinstance(e, str):
                yield from (e + "x", e[:-1], e.upper(), e.lower(), e + " ")
            elif isinstance(e, int | float) and not isinstance(e, bool):
                yield from (e + 1, e - 1, e + 0.5)
    if keyword == "const":
        c = schema.get("const")
        if isinstance(c, str):
            yield from (c + "x", c[:-1], c.upper(), c.lower())
        elif isinstance(c, int | float) and not isinstance(c, bool):
            yield from (c + 1, c - 1)
        elif isinstance(c, bool):
            yield not c
    if keyword == "type":
        pass  # a value of the same type cannot break it: the pool only
    elif isinstance(value, str):
        yield from _strings(keyword, schema, value)
    elif isinstance(value, int | float) and not isinstance(value, bool) and not math.isinf(value):
        yield from (value + 1, value - 1, value + 0.5, -value, value * 2)
    yield from _GENERIC


def candidates(keyword: str, schema: dict[str, Any], value: Any, matches: Any) -> Iterator[Any]:
    """Values to put at the location in place of `value` to break `keyword` of `schema`.
    `matches(v)`: whether v is valid under the schema's `contains` (for the contains keywords)."""
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
        yield from _numbers(keyword, schema, value)
    elif keyword in ("pattern", "format", "minLength", "maxLength"):
        if isinstance(value, str):
            yield from _strings(keyword, schema, value)
    elif keyword in (
        "required",
        "dependentRequired",
        "dependencies",
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
    ):
        if isinstance(value, dict):
            yield from _properties(keyword, schema, value)
    elif keyword in ("minItems", "maxItems", "uniqueItems", "contains", "minContains", "maxContains"):
        if isinstance(value, list):
            yield from _arrays(keyword, schema, value, matches)
    else:
        yield from _others(keyword, schema, value)
