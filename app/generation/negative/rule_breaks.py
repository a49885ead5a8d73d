"""Constraint-set rules as breakable constraints of JSON records (issue 30): a value outside a
rule's range (min/max), lengths, pattern or values (enum), null where its null_rate is 0, a
duplicate where it says unique. The label's keyword is the rule key, its `rule` the rule's index.

The other side: `RuleChecks.hold` tells whether a record whose schema constraint was broken still
keeps every rule of the values it changed (a break that breaks a rule too is not used)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

import orjson

from app.generation.model import FieldTree, Kind, Node
from app.generation.negative.constraints import Constraint
from app.generation.negative.instance import ANY_ITEM, Path, Step, escape, get, locations
from app.generation.negative.json_values import candidates as schema_candidates

RULE_KEYWORDS = ("min", "max", "min_length", "max_length", "pattern", "enum", "null_rate", "unique")
_TEMPORAL: dict[Kind, Callable[[str], Any]] = {
    Kind.DATE: dt.date.fromisoformat,
    Kind.DATETIME: dt.datetime.fromisoformat,
    Kind.TIME: dt.time.fromisoformat,
}
_STEPS: dict[Kind, tuple[dt.timedelta, ...]] = {
    Kind.DATE: (dt.timedelta(days=1), dt.timedelta(days=2), dt.timedelta(days=31)),
    Kind.DATETIME: (dt.timedelta(seconds=1), dt.timedelta(hours=1), dt.timedelta(days=1)),
    Kind.TIME: (dt.timedelta(seconds=1), dt.timedelta(minutes=1), dt.timedelta(hours=1)),
}


def rule_get(rule: Any, key: str) -> Any:
    return rule.get(key) if isinstance(rule, Mapping) else getattr(rule, key, None)


class Field:
    """A rule's field: where its values are in a record and what kind they are."""

    def __init__(self, template: tuple[Step, ...], node: Node, pointer: str) -> None:
        self.template, self.node, self.pointer = template, node, pointer


def _fields(tree: FieldTree) -> dict[str, Field]:
    """Each field path (as rules name them) -> its value template (array items: ANY_ITEM) and the
    schema pointer of its (sub)schema, walked from the record root (definitions followed)."""
    out: dict[str, Field] = {}

    def walk(node: Node, template: tuple[Step, ...], pointer: str, depth: int) -> None:
        if depth > 24:
            return
        if node.kind is Kind.REF and node.ref in tree.definitions:
            walk(tree.definitions[node.ref], template, pointer, depth + 1)
            return
        if node.kind is Kind.ARRAY and node.items is not None:
            walk(node.items, (*template, ANY_ITEM), pointer + "/items", depth + 1)
            return
        if node.path not in out or len(out[node.path].template) > len(template):
            out.setdefault(node.path, Field(template, node, pointer))
        for child in node.children:
            walk(child, (*template, child.name), f"{pointer}/properties/{escape(child.name)}", depth + 1)
        for option in node.options:
            walk(option, template, pointer, depth + 1)

    walk(tree.root, (), "", 0)
    return out


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _comparable(kind: Kind, v: Any) -> Any:
    """`v` as a value to compare with the rule's bounds, None when it is not one of `kind`."""
    if kind in (Kind.INTEGER, Kind.NUMBER):
        try:
            return Decimal(repr(v)) if _is_number(v) else None
        except InvalidOperation:
            return None
    if kind in _TEMPORAL and isinstance(v, str):
        try:
            value = _TEMPORAL[kind](v)
        except ValueError:
            return None
        return value.replace(tzinfo=None) if isinstance(value, dt.datetime | dt.time) else value
    return None


def _same(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but True is not 1."""
    if _is_number(a) and _is_number(b):
        return bool(a == b)
    return type(a) is type(b) and a == b


def broken_keys(rule: Any, kind: Kind, value: Any) -> list[str]:
    """The keys of `rule` a field value breaks (null breaks only a null_rate of 0)."""
    if value is None:
        return ["null_rate"] if rule_get(rule, "null_rate") == 0 else []
    out: list[str] = []
    for key in ("min", "max"):
        bound = rule_get(rule, key)
        if bound is not None:
            v, b = _comparable(kind, value), _comparable(kind, bound)
            try:
                if v is None or (v < b if key == "min" else v > b):
                    out.append(key)
            except TypeError:
                out.append(key)
    for key in ("min_length", "max_length"):
        n = rule_get(rule, key)
        if n is not None and (
            not isinstance(value, str) or (len(value) < n if key == "min_length" else len(value) > n)
        ):
            out.append(key)
    pattern = rule_get(rule, "pattern")
    if pattern is not None and (not isinstance(value, str) or re.fullmatch(pattern, value) is None):
        out.append("pattern")
    enum = rule_get(rule, "enum")
    if enum is not None and not any(_same(value, e) for e in enum):
        out.append("enum")
    return out


def describe(key: str, rule: Any, value: Any) -> str:
    shown = repr(value)[:60]
    if key == "null_rate":
        return "is null where the rule's null_rate is 0"
    if key == "unique":
        return f"{shown} repeats another record's value where the rule says unique"
    if key == "enum":
        return f"{shown} is not one of the rule's values"
    if key == "pattern":
        return f"{shown} does not match the rule's pattern {str(rule_get(rule, 'pattern'))[:60]!r}"
    words = {
        "min": "below the rule's min",
        "max": "above the rule's max",
        "min_length": "shorter than the rule's min_length",
        "max_length": "longer than the rule's max_length",
    }
    return f"{shown} is {words[key]} {rule_get(rule, key)}"


def offered_key(rule: Any, key: str, template: tuple[Step, ...]) -> bool:
    """Whether rule key `key` is a breakable constraint of a field at `template`."""
    value = rule_get(rule, key)
    if key == "null_rate":
        return bool(value == 0)
    if key == "unique":
        return value is True and ANY_ITEM not in template  # a duplicate of another record's one value
    if key == "min_length":
        return isinstance(value, int) and value > 0
    return value is not None


class RuleChecks:
    """The rules of one record root: their breakable constraints and the check of other breaks."""

    def __init__(self, tree: FieldTree, rules: Sequence[Any], fields: Mapping[str, Field] | None = None) -> None:
        """`fields`: each rule path's field, when not the JSON record's (`_fields`): an XSD's (xsd_rules.py)."""
        fields = _fields(tree) if fields is None else fields
        self.fields: list[tuple[int, Any, Field]] = []
        for i, rule in enumerate(rules):
            f = fields.get(str(rule_get(rule, "path") or ""))
            if f is not None:
                self.fields.append((i, rule, f))
        self._relevant: dict[int, list[tuple[int, Any, Field]]] = {}

    def constraints(self) -> list[Constraint]:
        out = []
        for i, rule, f in self.fields:
            for key in RULE_KEYWORDS:
                if offered_key(rule, key, f.template):
                    out.append(
                        Constraint(f.template, key, f.pointer, rule=i, extra={"rule": rule, "field": f})
                    )
        return out

    def _same_field(self, f: Field) -> list[tuple[int, Any, Field]]:
        return [x for x in self.fields if x[2].template == f.template]

    def keeps_others(self, c: Constraint, value: Any) -> bool:
        """Whether `value` breaks rule c.rule's key c.keyword and nothing else of the field's rules."""
        f: Field = c.extra["field"]
        for i, rule, _ in self._same_field(f):
            keys = broken_keys(rule, f.node.kind, value)
            if i == c.rule and c.keyword != "unique":
                if keys != [c.keyword]:
                    return False
            elif keys:
                return False
        return True

    def hold(self, c: Constraint, record: Any, path: Path) -> bool:
        """Whether every rule of the values at and under `path` (changed by breaking schema
        constraint `c`) holds in `record`: ranges, lengths, patterns, values, null rates, and
        no value repeated within the record where a rule says unique."""
        relevant = self._relevant.get(id(c))
        if relevant is None:
            relevant = [x for x in self.fields if _under(x[2].template, c.template)]
            self._relevant[id(c)] = relevant
        for _, rule, f in relevant:
            places = [p for p in locations(record, f.template) if p[: len(path)] == path]
            values = [get(record, p) for p in places]
            if any(broken_keys(rule, f.node.kind, v) for v in values):
                return False
            if rule_get(rule, "unique") is True and len(values) > 1:
                texts = [orjson.dumps(v) for v in values if v is not None]
                if len(set(texts)) < len(texts):
                    return False
        return True

    def candidates(self, c: Constraint, value: Any, peers: Iterable[Any], path: Path) -> Iterator[Any]:
        """Values that might break rule key c.keyword at a location now holding `value`."""
        rule, f = c.extra["rule"], c.extra["field"]
        kind, key = f.node.kind, c.keyword
        bound = rule_get(rule, key)
        if key == "null_rate":
            yield None
        elif key == "unique":
            for peer in peers:
                try:
                    yield get(peer, path)
                except (KeyError, IndexError, TypeError):
                    continue
        elif key in ("min", "max"):
            yield from _outside(kind, key, bound, value, f.node.multiple_of)
        elif key == "min_length" and isinstance(value, str):
            yield value[: bound - 1]
            yield (value * bound)[: bound - 1]
            yield "a" * (bound - 1)
        elif key == "max_length" and isinstance(value, str):
            yield (value + (value or "a") * (bound + 1))[: bound + 1]
            yield "a" * (bound + 1)
            yield "1" * (bound + 1)
        elif key == "pattern" and isinstance(value, str):
            yield from schema_candidates("pattern", {}, value, None)
        elif key == "enum":
            yield from f.node.enum or ()  # the schema's own values the rule leaves out
            yield from schema_candidates("enum", {"enum": bound}, value, None)


def _under(rule_t: tuple[Step, ...], c_t: tuple[Step, ...]) -> bool:
    """Whether the values of rule template `rule_t` may lie at or under constraint template `c_t`."""
    if len(rule_t) < len(c_t):
        return False
    return all(a == b or a is ANY_ITEM or b is ANY_ITEM for a, b in zip(rule_t, c_t, strict=False))


def _outside(kind: Kind, key: str, bound: Any, value: Any, multiple_of: Any) -> Iterator[Any]:
    sign = -1 if key == "min" else 1
    if kind in _TEMPORAL and isinstance(bound, str):
        try:
            b = _TEMPORAL[kind](bound)
        except ValueError:
            return
        for step in _STEPS[kind]:
            if isinstance(b, dt.time):
                base = dt.datetime.combine(dt.date(2000, 1, 1), b) + sign * step
                if base.date() != dt.date(2000, 1, 1):
                    continue
                moved: Any = base.time().replace(tzinfo=b.tzinfo)
            else:
                moved = b + sign * step
            text = moved.isoformat()
            if kind is not Kind.DATE and moved.tzinfo is None:
                yield text + "Z"  # JSON Schema's date-time and time carry an offset
            yield text
        return
    if kind not in (Kind.INTEGER, Kind.NUMBER) or not _is_number(bound):
        return
    b = Decimal(repr(bound))
    steps = [Decimal(1), Decimal(2), Decimal(10), Decimal(100)]
    if kind is Kind.NUMBER:
        steps = [Decimal("0.5"), Decimal("0.01"), *steps]
    if multiple_of:
        m = Decimal(str(multiple_of))
        edge = (b / m).to_integral_value(rounding="ROUND_CEILING" if key == "min" else "ROUND_FLOOR") * m
        steps = [abs(edge - b) + m * k for k in (1, 2, 3)] + steps
    for s in steps:
        x = b + sign * s
        yield (
            int(x)
            if kind is Kind.INTEGER or (x == x.to_integral_value() and isinstance(value, int))
            else float(x)
        )
