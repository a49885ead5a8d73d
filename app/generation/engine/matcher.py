"""Does a plain Python value satisfy a field-model node? Used where generation must *test* a value
against a sibling schema.
Design notes: docs/generation.md."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from app.generation.caching import short_key_cache
from app.generation.model import ChoiceMode, Kind, Node

_NUMERIC = (int, float, Decimal)


@short_key_cache(maxsize=512)
def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _num(v: Any) -> Decimal | None:
    if isinstance(v, bool) or not isinstance(v, _NUMERIC):
        return None
    return Decimal(str(v)) if isinstance(v, float) else Decimal(v)


def accepts(
    node: Node,
    value: Any,
    definitions: dict[str, Node],
    depth: int = 0,
    memo: dict[tuple[int, int], bool] | None = None,
) -> bool:
    # one answer per (node, value object) within a top-level call: nested choices of shared
    # definitions would otherwise test the same value against the same node exponentially often
    if memo is None:
        memo = {}
    mk = (id(node), id(value))
    hit = memo.get(mk)
    if hit is not None:
        return hit
    # a schema the loader found unsatisfiable (an option or property never drawn) accepts nothing
    ok = _accepts(node, value, definitions, depth, memo)
    if ok and node.unsupported and any("no value is valid" in u for u in node.unsupported):
        ok = False
    # `not`: a value matching a negated subschema is refused (past the depth cap nothing is refused)
    if ok and node.negations and depth <= 50:
        ok = not any(accepts(n, value, definitions, depth + 1, memo) for n in node.negations)
    memo[mk] = ok
    return ok


def _accepts(
    node: Node, value: Any, definitions: dict[str, Node], depth: int, memo: dict[tuple[int, int], bool]
) -> bool:
    if depth > 50:
        return True
    if value is None:
        return _accepts_null(node, definitions, depth, memo)
    if node.has_const and value != node.const:
        return False
    if node.enum is not None and value not in node.enum:
        return False
    k = node.kind
    if k == Kind.REF:
        target = definitions.get(node.ref or "")
        return target is None or accepts(target, value, definitions, depth + 1, memo)
    if k == Kind.ANY:  # unconstrained (the loader's impossible schemas are refused above)
        return True
    if k == Kind.CHOICE:
        hits = sum(1 for o in node.options if accepts(o, value, definitions, depth + 1, memo))
        return hits == 1 if node.choice_mode == ChoiceMode.ONE_OF else hits >= 1
    if k == Kind.NULL:
        return False
    if not node.typed and not _of_kind(value, k):
        return True  # no `type`: the node's keywords bind values of their own type only
    if k == Kind.BOOLEAN:
        return isinstance(value, bool)
    if k in (Kind.INTEGER, Kind.NUMBER):
        x = _num(value)
        if x is None or (k == Kind.INTEGER and x != x.to_integral_value()):
            return False
        if node.minimum is not None:
            lo = Decimal(str(node.minimum))
            if x < lo or (node.exclusive_minimum and x == lo):
                return False
        if node.maximum is not None:
            hi = Decimal(str(node.maximum))
            if x > hi or (node.exclusive_maximum and x == hi):
                return False
        return not (node.multiple_of is not None and x % node.multiple_of != 0)
    if k in (Kind.STRING, Kind.DATE, Kind.DATETIME, Kind.TIME):
        if not isinstance(value, str):
            return False
        if node.min_length is not None and len(value) < node.min_length:
            return False
        if node.max_length is not None and len(value) > node.max_length:
            return False
        for p in node.patterns:
            rx = _rx(p)
            if (rx.fullmatch(value) if node.pattern_anchored else rx.search(value)) is None:
                return False
        return True
    if k == Kind.ARRAY:
        if not isinstance(value, list):
            return False
        if node.min_items is not None and len(value) < node.min_items:
            return False
        if node.max_items is not None and len(value) > node.max_items:
            return False
        for i, item in enumerate(value):
            sub = node.prefix_items[i] if i < len(node.prefix_items) else node.items
            if sub is not None and not accepts(sub, item, definitions, depth + 1, memo):
                return False
        if node.contains is not None:
            hits = sum(1 for item in value if accepts(node.contains, item, definitions, depth + 1, memo))
            if hits < (1 if node.min_contains is None else node.min_contains):
                return False
            if node.max_contains is not None and hits > node.max_contains:
                return False
        return _conditions_hold(node, value, definitions, depth, memo)
    if k == Kind.OBJECT:
        if not isinstance(value, dict):
            return False
        return _object_accepts(node, value, definitions, depth, memo)
    return True


def _accepts_null(node: Node, definitions: dict[str, Node], depth: int, memo: dict[tuple[int, int], bool]) -> bool:
    return (
        node.nullable
        or (not node.typed and node.enum is None and not node.has_const)  # no `type`: null meets it
        or node.kind in (Kind.NULL, Kind.ANY)
        or (node.kind == Kind.CHOICE and any(accepts(o, None, definitions, depth + 1, memo) for o in node.options))
    )


def _of_kind(value: Any, k: Kind) -> bool:
    """Whether a JSON value is of the type whose keywords `k` stands for."""
    if k == Kind.OBJECT:
        return isinstance(value, dict)
    if k == Kind.ARRAY:
        return isinstance(value, list)
    if k in (Kind.STRING, Kind.DATE, Kind.DATETIME, Kind.TIME):
        return isinstance(value, str)
    if k in (Kind.INTEGER, Kind.NUMBER):
        return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)
    if k == Kind.BOOLEAN:
        return isinstance(value, bool)
    return True


def _object_accepts(
    node: Node, value: dict, definitions: dict[str, Node], depth: int, memo: dict[tuple[int, int], bool]
) -> bool:
    known: set[str] = set()
    for child in node.children:
        if not child.name:  # anonymous group: its members are keys of this object
            for sub in child.walk():
                if sub.name:
                    known.add(sub.name)
            continue
        known.add(child.name)
        if child.name in value:
            if not accepts(child, value[child.name], definitions, depth + 1, memo):
                return False
        elif child.required:
            return False
    for key in value:
        if key in known:
            continue
        matched = False
        for pattern, sub in node.pattern_properties:
            if _rx(pattern).search(key) is not None:
                matched = True
                if not accepts(sub, value[key], definitions, depth + 1, memo):
                    return False
        if matched:
            continue
        if not node.additional_properties:
            return False
        if node.additional is not None and not accepts(
            node.additional, value[key], definitions, depth + 1, memo
        ):
            return False
    for key, deps in node.dependent_required.items():
        if key in value and any(d not in value for d in deps):
            return False
    return _conditions_hold(node, value, definitions, depth, memo)


def _conditions_hold(
    node: Node, value: Any, definitions: dict[str, Node], depth: int, memo: dict[tuple[int, int], bool]
) -> bool:
    for cond in node.conditionals:
        branch = cond.then if accepts(cond.if_, value, definitions, depth + 1, memo) else cond.else_
        if branch is not None and not accepts(branch, value, definitions, depth + 1, memo):
            return False
    return True
