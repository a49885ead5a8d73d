"""Constraint-set rules: parse raw rule objects and check each against the schema's field tree.
Design notes: docs/generation.md."""

from __future__ import annotations

import datetime as dt
import math
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from app.generation.errors import GenerationError, RuleError
from app.generation.limits import MAX_FIELD_CHARS, VALUE_CHARS_FLOOR
from app.generation.model import FieldTree, Kind, Node
from app.generation.ordering import check_after, check_after_cycles
from app.generation.rule_keys import DISTRIBUTIONS, RULE_KEYS, value_problem
from app.generation.schema.expansion import repetitions
from app.generation.values.categories import CATEGORIES
from app.generation.values.regex import shortest_match, unsupported_reason

_TEMPORAL = {
    Kind.DATE: dt.date.fromisoformat,
    Kind.DATETIME: dt.datetime.fromisoformat,
    Kind.TIME: dt.time.fromisoformat,
}
_TEXT_KINDS = (Kind.STRING, Kind.DATE, Kind.DATETIME, Kind.TIME)
_DATE_FORMATS = ("date", "date-time", "time")


@dataclass(frozen=True)
class Rule:
    path: str
    category: str | None = None
    pattern: str | None = None
    min: Any = None
    max: Any = None
    min_length: int | None = None
    max_length: int | None = None
    enum: list[Any] | None = None
    null_rate: float | None = None
    unique: bool | None = None  # None: the field's default (emails, usernames, ids, codes, keys unique)
    distribution: Any = None  # raw until checked: uniform | normal | lognormal | skewed
    mean: Any = None
    sd: Any = None
    edge_rate: Any = None
    after: str | None = None  # a sibling time field this one is later than in every record


def _fail(path: str, conflict: str, key: str) -> RuleError:
    """The refusal of the rule for `path`, about its `key` (parse_rules adds the rule's index)."""
    return RuleError(f"Rule for '{path}': {conflict.rstrip('.')}.", key=key, rule_path=path)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def _value_node(tree: FieldTree, node: Node) -> Node:
    """The node whose values a rule constrains: REFs followed, array items for arrays."""
    for _ in range(32):
        if node.kind is Kind.REF and node.ref in tree.definitions:
            node = tree.definitions[node.ref]
        elif node.kind is Kind.ARRAY and node.items is not None:
            node = node.items
        else:
            break
    return node


def _comparable(kind: Kind, value: Any, path: str, key: str) -> Any:
    """A rule bound or enum value as a comparable Python value for `kind`, or RuleError."""
    if kind is Kind.INTEGER:
        if not _is_int(value) and not (isinstance(value, float) and value.is_integer()):
            raise _fail(path, f"'{key}' must be an integer for an integer field", key)
        return Decimal(int(value))
    if kind is Kind.NUMBER:
        if not _is_number(value):
            raise _fail(path, f"'{key}' must be a number for a number field", key)
        return Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    if kind in _TEMPORAL:
        if not isinstance(value, str):
            raise _fail(path, f"'{key}' must be an ISO {kind.value} string", key)
        try:
            return _TEMPORAL[kind](value)
        except ValueError:
            raise _fail(path, f"'{key}' {value[:40]!r} is not an ISO {kind.value}", key) from None
    raise _fail(
        path, f"'{key}' does not apply to a {kind.value} field (use min_length/max_length for strings)", key
    )


def _schema_bound(kind: Kind, value: Any) -> Any:
    if value is None:
        return None
    if kind in _TEMPORAL:
        try:
            return _TEMPORAL[kind](str(value))
        except ValueError:
            return None  # an XSD lexical form Python cannot read (e.g. a year beyond 9999)
    return Decimal(value) if not isinstance(value, Decimal) else value


def _less(a: Any, b: Any) -> bool | None:
    try:
        return bool(a < b)
    except TypeError:
        return None  # e.g. naive vs aware datetimes: not comparable, so not a provable conflict


def _check_range(node: Node, path: str, lo: Any, hi: Any) -> None:
    """Rule bounds (inclusive) against the schema's own bounds (exclusive flags respected)."""
    s_lo, s_hi = _schema_bound(node.kind, node.minimum), _schema_bound(node.kind, node.maximum)
    if hi is not None and s_lo is not None:
        below = _less(hi, s_lo)
        if below or (node.exclusive_minimum and hi == s_lo):
            raise _fail(
                path,
                f"max {hi} is below the schema's minimum {node.minimum}"
                f"{' (exclusive)' if node.exclusive_minimum else ''}",
                "max",
            )
    if lo is not None and s_hi is not None:
        above = _less(s_hi, lo)
        if above or (node.exclusive_maximum and lo == s_hi):
            raise _fail(
                path,
                f"min {lo} is above the schema's maximum {node.maximum}"
                f"{' (exclusive)' if node.exclusive_maximum else ''}",
                "min",
            )


def _enum_value_error(node: Node, value: Any, path: str) -> str | None:
    """Why `value` is outside the schema's own facets for `node`, or None."""
    kind = node.kind
    shown = repr(value)[:60]
    if node.enum is not None and value not in node.enum:
        return f"enum value {shown} is not one of the schema's enumerated values"
    if node.has_const and value != node.const:
        return f"enum value {shown} differs from the schema's const value"
    if kind in _TEXT_KINDS:
        if not isinstance(value, str):
            return f"enum value {shown} is not a string"
        if node.min_length is not None and len(value) < node.min_length:
            return f"enum value {shown} is shorter than the schema's minLength {node.min_length}"
        if node.max_length is not None and len(value) > node.max_length:
            return f"enum value {shown} is longer than the schema's maxLength {node.max_length}"
        for pattern in node.patterns:
            matcher = re.fullmatch if node.pattern_anchored else re.search
            if matcher(pattern, value) is None:
                return f"enum value {shown} does not match the schema's pattern"
    if kind in (Kind.INTEGER, Kind.NUMBER, *_TEMPORAL):
        try:
            comparable = _comparable(kind, value, path, "enum")
        except GenerationError:
            return f"enum value {shown} is not a valid {kind.value}"
        try:
            _check_range(node, path, comparable, comparable)
        except GenerationError:
            return f"enum value {shown} is outside the schema's range"
        if isinstance(comparable, Decimal):
            return _digits_error(node, comparable, shown)
    if kind is Kind.BOOLEAN and not isinstance(value, bool):
        return f"enum value {shown} is not a boolean"
    if kind in (Kind.OBJECT, Kind.ARRAY, Kind.CHOICE, Kind.REF):
        return f"enum values are not supported on a {kind.value} field"
    return None


def _digits_error(node: Node, value: Decimal, shown: str) -> str | None:
    if node.multiple_of is not None and value % node.multiple_of != 0:
        return f"enum value {shown} is not a multiple of {node.multiple_of}"
    exponent = value.normalize().as_tuple().exponent
    fraction = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    if node.fraction_digits is not None and fraction > node.fraction_digits:
        return f"enum value {shown} has more than {node.fraction_digits} fraction digits"
    digits = len(value.normalize().as_tuple().digits)
    if node.total_digits is not None and digits > node.total_digits:
        return f"enum value {shown} has more than {node.total_digits} digits"
    return None


def _parse_one(tree: FieldTree, raw: Any, index: int) -> Rule:
    if not isinstance(raw, dict):
        raise RuleError(f"Rule {index} must be an object with a 'path'.")
    path = raw.get("path")
    if not isinstance(path, str):
        raise RuleError(f"Rule {index} must have a string 'path'.", key="path")
    unknown = sorted(set(raw) - RULE_KEYS)
    if unknown:
        raise _fail(path, f"unknown key '{unknown[0]}' (allowed: {', '.join(sorted(RULE_KEYS))})", unknown[0])
    for key in sorted(raw.keys() - {"path"}):  # each value's shape (rule_keys.py), then its field
        problem = value_problem(key, raw[key])
        if problem:
            raise _fail(path, problem, key)
    field_node = tree.find(path)
    if field_node is None:
        raise _fail(path, "no field has this path in the schema", "path")
    node = _value_node(tree, field_node)
    rule = Rule(path=path, **{k: v for k, v in raw.items() if k != "path"})

    # a Rule holds the raw, unchecked values until here: their type checks read them from `raw`
    if rule.category is not None:
        category = CATEGORIES.get(raw["category"]) if isinstance(raw["category"], str) else None
        if category is None:
            raise _fail(path, f"unknown category {str(rule.category)[:40]!r}", "category")
        if node.kind not in category.kinds:
            raise _fail(
                path, f"category '{rule.category}' does not fit a field of type {node.kind.value}", "category"
            )
    if rule.pattern is not None:
        _check_pattern(node, path, rule.pattern)
        _check_pattern_holds(node, path, rule)
    if rule.min is not None or rule.max is not None:
        lo = _comparable(node.kind, rule.min, path, "min") if rule.min is not None else None
        hi = _comparable(node.kind, rule.max, path, "max") if rule.max is not None else None
        if lo is not None and hi is not None and _less(hi, lo):
            raise _fail(path, f"min {rule.min} is greater than max {rule.max}", "min")
        _check_range(node, path, lo, hi)
    if rule.min_length is not None or rule.max_length is not None:
        _check_lengths(node, path, rule.min_length, rule.max_length)
    if rule.enum is not None:
        if not isinstance(raw["enum"], list) or not rule.enum:
            raise _fail(path, "'enum' must be a non-empty list", "enum")
        for value in rule.enum:
            reason = _enum_value_error(node, value, path)
            if reason:
                raise _fail(path, reason, "enum")
    if rule.null_rate is not None:
        if not _is_number(rule.null_rate) or not 0 <= rule.null_rate <= 1:
            raise _fail(path, "'null_rate' must be a number from 0 to 1", "null_rate")
        if field_node.required and not field_node.nullable and rule.null_rate > 0:
            raise _fail(path, "'null_rate' on a required field that is not nullable", "null_rate")
    if rule.unique is not None and not isinstance(rule.unique, bool):
        raise _fail(path, "'unique' must be true or false", "unique")
    _check_shape(node, path, rule)
    if rule.after is not None:
        check_after(tree, field_node, path, raw["after"])
    _check_cost(tree, path, rule)
    return rule


def _check_cost(tree: FieldTree, path: str, rule: Rule) -> None:
    """The field's cost with the rule's pattern or min_length (checked above) against the limit
    the schema's own facets are held to (app/generation/schema/expansion.py)."""
    chars = max(shortest_match(rule.pattern) if isinstance(rule.pattern, str) else 0, rule.min_length or 0)
    if chars <= VALUE_CHARS_FLOOR:
        return
    repeats = repetitions(tree, path)
    if chars * repeats > MAX_FIELD_CHARS:
        raise _fail(
            path,
            f"values of at least {chars:,} characters, {repeats:,} of them in every record (minItems), "
            f"need {chars * repeats:,} characters of this field per record; the limit is {MAX_FIELD_CHARS:,}",
            "pattern" if isinstance(rule.pattern, str) else "min_length",
        )


def _check_pattern(node: Node, path: str, pattern: Any) -> None:
    if not isinstance(pattern, str):
        raise _fail(path, "'pattern' must be a string", "pattern")
    if node.kind is not Kind.STRING:
        raise _fail(path, f"'pattern' does not apply to a {node.kind.value} field", "pattern")
    try:
        re.compile(pattern)
    except re.error as exc:
        raise _fail(path, f"pattern does not compile: {exc}", "pattern") from None
    except RecursionError:  # `re` parses groups recursively: ~500 nested ones exhaust the stack
        raise _fail(path, "pattern is nested too deeply", "pattern") from None
    reason = unsupported_reason(pattern)
    if reason:
        raise _fail(path, f"pattern cannot be generated: {reason.rstrip('.')}", "pattern")


def _check_pattern_holds(node: Node, path: str, rule: Rule) -> None:
    """A pattern the field would ignore (its values are the schema's enum or const) or whose
    values cannot have a length the field allows is refused at this rule, not when a dataset
    is generated (issue 32 item 6)."""
    if rule.enum is None and (node.enum is not None or node.has_const):
        raise _fail(
            path,
            "'pattern' would be ignored: the schema lists this field's values (enum/const), so every "
            "value is one of them; choose among them with the rule key 'enum'",
            "pattern",
        )
    highs = [int(v) for v in (node.max_length, rule.max_length) if v is not None and _is_int(v)]
    lows = [int(v) for v in (node.min_length, rule.min_length) if v is not None and _is_int(v)]
    lo = max(lows, default=0)
    hi = min(highs) if highs else None
    from app.generation.values.regex import RegexGenerator, UnsupportedPattern

    try:
        why = RegexGenerator(str(rule.pattern), anchored=True).feasible(lo, hi)
    except UnsupportedPattern:
        return  # reported by _check_pattern's unsupported_reason
    if why:
        raise _fail(path, f"'pattern' cannot hold on this field: {why}", "pattern")


def _check_lengths(node: Node, path: str, lo: Any, hi: Any) -> None:
    for key, value in (("min_length", lo), ("max_length", hi)):
        if value is not None and (not _is_int(value) or value < 0):
            raise _fail(path, f"'{key}' must be a non-negative integer", key)
    if node.kind is not Kind.STRING:
        raise _fail(
            path, f"'min_length'/'max_length' do not apply to a {node.kind.value} field", "min_length"
        )
    if lo is not None and lo > MAX_FIELD_CHARS:
        raise _fail(
            path,
            f"min_length {lo:,} is above the limit of {MAX_FIELD_CHARS:,} characters a value may have",
            "min_length",
        )
    if lo is not None and hi is not None and lo > hi:
        raise _fail(path, f"min_length {lo} is greater than max_length {hi}", "min_length")
    if hi is not None and node.min_length is not None and hi < node.min_length:
        raise _fail(path, f"max_length {hi} is below the schema's minLength {node.min_length}", "max_length")
    if lo is not None and node.max_length is not None and lo > node.max_length:
        raise _fail(path, f"min_length {lo} is above the schema's maxLength {node.max_length}", "min_length")


def _check_shape(node: Node, path: str, rule: Rule) -> None:
    """`distribution` (with its `mean`/`sd`) and `edge_rate` against the field's kind."""
    if rule.edge_rate is not None:
        if not _is_number(rule.edge_rate) or not 0 <= rule.edge_rate <= 1:
            raise _fail(path, "'edge_rate' must be a number from 0 to 1", "edge_rate")
        if node.kind in (Kind.OBJECT, Kind.ARRAY, Kind.CHOICE, Kind.REF, Kind.ANY):
            raise _fail(path, f"'edge_rate' does not apply to a {node.kind.value} field", "edge_rate")
    dist = rule.distribution
    if dist is None:
        if rule.mean is not None or rule.sd is not None:
            raise _fail(path, "'mean'/'sd' need 'distribution' normal or lognormal", "distribution")
        return
    if not isinstance(dist, str) or dist not in DISTRIBUTIONS:
        raise _fail(path, f"'distribution' must be one of {', '.join(DISTRIBUTIONS)}", "distribution")
    if rule.unique:
        raise _fail(
            path,
            "'distribution' does not apply to a unique field (its values are a permutation)",
            "distribution",
        )
    enumerated = node.enum is not None or node.has_const or rule.enum is not None
    numeric = node.kind in (Kind.INTEGER, Kind.NUMBER) and not enumerated
    temporal = node.kind in _TEMPORAL or (node.kind is Kind.STRING and node.format in _DATE_FORMATS)
    if dist in ("normal", "lognormal"):
        if not numeric:
            raise _fail(
                path,
                f"distribution '{dist}' applies to integer and number fields without enum",
                "distribution",
            )
        _check_moments(node, path, rule, dist)
    elif rule.mean is not None or rule.sd is not None:
        raise _fail(path, f"'mean'/'sd' do not apply to distribution '{dist}'", "mean")
    elif dist == "skewed" and not (numeric or enumerated):
        raise _fail(
            path,
            "distribution 'skewed' applies to integer and number fields and to enum values",
            "distribution",
        )
    elif dist == "uniform" and not (numeric or enumerated or (temporal and not enumerated)):
        raise _fail(
            path,
            f"distribution 'uniform' does not apply to a {node.kind.value} field without enum",
            "distribution",
        )


def _check_moments(node: Node, path: str, rule: Rule, dist: str) -> None:
    if dist == "normal" and (rule.mean is None or rule.sd is None):
        raise _fail(path, "distribution 'normal' needs both 'mean' and 'sd'", "distribution")
    if (rule.mean is None) != (rule.sd is None):
        raise _fail(path, f"distribution '{dist}' takes both 'mean' and 'sd' or neither", "distribution")
    if rule.mean is None:
        return
    if not _is_number(rule.mean) or not math.isfinite(rule.mean):
        raise _fail(path, "'mean' must be a number", "mean")
    if not _is_number(rule.sd) or not math.isfinite(rule.sd) or rule.sd <= 0:
        raise _fail(path, "'sd' must be a number greater than 0", "sd")
    mean = Decimal(repr(rule.mean)) if isinstance(rule.mean, float) else Decimal(rule.mean)
    lows = [_schema_bound(node.kind, node.minimum)]
    highs = [_schema_bound(node.kind, node.maximum)]
    if rule.min is not None:
        lows.append(_comparable(node.kind, rule.min, path, "min"))
    if rule.max is not None:
        highs.append(_comparable(node.kind, rule.max, path, "max"))
    lo = max((b for b in lows if b is not None), default=None)
    hi = min((b for b in highs if b is not None), default=None)
    if (lo is not None and mean < lo) or (hi is not None and mean > hi):
        raise _fail(path, f"mean {rule.mean} lies outside the allowed range {lo}..{hi}", "mean")
    if dist == "lognormal" and lo is not None and mean <= lo:
        raise _fail(path, f"lognormal mean {rule.mean} must lie above the minimum {lo}", "mean")


def parse_rules(tree: FieldTree, raw_rules: object) -> list[Rule]:
    """Validate raw rule objects against `tree`; the first conflict raises RuleError naming its path."""
    if not isinstance(raw_rules, list):
        raise RuleError("'rules' must be a list of rule objects.", field="rules")
    rules: list[Rule] = []
    try:
        for index, raw in enumerate(raw_rules):
            rules.append(_parse_one(tree, raw, index))
    except RuleError as exc:
        raise exc.at(index) from None
    seen: set[str] = set()
    for index, rule in enumerate(rules):
        if rule.path in seen:
            raise _fail(rule.path, "more than one rule has this path", "path").at(index)
        seen.add(rule.path)
    try:
        check_after_cycles([(r.path, r.after) for r in rules if r.after is not None])
    except RuleError as exc:
        raise exc.at(next(i for i, r in enumerate(rules) if r.path == exc.rule_path)) from None
    return rules
