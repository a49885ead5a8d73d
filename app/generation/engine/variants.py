"""Shapes the compiler derives from the field model: if/then/else and array variants, extra
property keys, and which oneOf options may overlap (and so need exclusivity re-draws)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import numpy as np

from app.generation.engine.generators import (
    Gen,
    hash_key,
)
from app.generation.engine.matcher import accepts
from app.generation.model import ChoiceMode, Kind, Node
from app.generation.values.regex import RegexGenerator

_APART_BUDGET = 400  # enum values x rival options tested by apart_by_enum, per option
_KEY_PATTERN = "[a-z][a-zA-Z0-9_]{2,11}"  # keys for additionalProperties when nothing constrains them


def extra_properties(node: Node, need: int, taken: set[str]) -> list[tuple[str, Node]]:
    """`need` new (key, value schema) pairs, keys drawn from the patternProperties patterns (each
    matching only its own pattern) or, where additional properties are allowed, from
    propertyNames' pattern or a plain identifier pattern; all deterministic in the node's path."""
    sources: list[tuple[str, bool, Node, str | None]] = [(p, False, v, p) for p, v in node.pattern_properties]
    if node.additional_properties:
        names = node.property_names
        pattern, anchored = (
            (names.patterns[0], names.pattern_anchored)
            if names is not None and names.patterns
            else (_KEY_PATTERN, True)
        )
        sources.append((pattern, anchored, node.additional or Node(Kind.ANY), None))
    rng = np.random.default_rng(hash_key(node.path + "#keys") & ((1 << 63) - 1))
    out: list[tuple[str, Node]] = []
    seen = set(taken)
    for pattern, anchored, value, own in sources:
        try:
            candidates = RegexGenerator(pattern, anchored=anchored).generate(rng, 8 * need + 8, 1, 40)
        except ValueError:
            continue
        for key in candidates:
            if len(out) >= need:
                return out
            if (
                not key
                or key in seen
                or (node.property_names is not None and not accepts(node.property_names, key, {}))
            ):
                continue
            # a key matching another pattern would have to satisfy that schema too: avoid it
            if own is not None and not re.search(own, key):
                continue
            if any(p != own and re.search(p, key) for p, _ in node.pattern_properties):
                continue
            seen.add(key)
            out.append((key, value))
    return out


def set_null_rate(gen: Gen, rate: float) -> None:
    if hasattr(gen, "null_rate"):
        gen.null_rate = rate


def _missed_pin(node: Node, pins: dict[str, Node]) -> dict[str, Node] | None:
    """One child of `node` made to miss an `if`'s pin (present, its value outside the pin), so
    values drawn for the `else` branch fail the `if` on purpose (one failing property is enough);
    None when no child can (its own enum lies inside the pin)."""
    for pname, pin in pins.items():
        child = node.child(pname)
        if child is None:
            continue
        allowed = [child.const] if child.has_const else child.enum
        if allowed is not None and all(accepts(pin, v, {}) for v in allowed):
            continue
        return {pname: replace(child, required=True, negations=[*child.negations, pin])}
    return None


def merge_object(
    base: Node, extra: Node | None, fixed: dict[str, Node], missed: dict[str, Node] | None = None
) -> Node:
    """`base` with `extra`'s properties laid over it (its required names required) and the
    discriminator properties of an `if` pinned to their const/enum: one variant of an object
    whose if/then/else picks a shape by a tag. Conditions are dropped: the variant is checked
    against the original node after generation."""
    children = {c.name: c for c in base.children}
    order = [c.name for c in base.children]
    if extra is not None and extra.kind == Kind.ANY:  # a `then` of only `not`s: no properties
        extra = replace(extra, children=[], additional_properties=True)
    if extra is not None:
        for c in extra.children:
            if c.name not in children:
                order.append(c.name)
            children[c.name] = c
        for c in extra.children:
            if c.required:
                children[c.name] = replace(children[c.name], required=True)
    for pname, pin in fixed.items():
        if pname in children:
            children[pname] = replace(
                children[pname], const=pin.const, has_const=pin.has_const, enum=pin.enum, required=True
            )
    for pname, child in (missed or {}).items():
        children[pname] = child
    additional = base.additional_properties and (extra is None or extra.additional_properties)
    negations = [*base.negations, *(extra.negations if extra is not None else [])]
    return replace(
        base,
        children=[children[n] for n in order],
        conditionals=[],
        additional_properties=additional,
        negations=negations,
    )


def condition_variants(node: Node) -> list[Node]:
    """One object variant per `if` whose properties are pinned by const/enum (a tagged union
    written as if/then), plus the base object for records matching no `if`; [] otherwise."""
    variants: list[Node] = []
    for cond in node.conditionals:
        pins = {c.name: c for c in cond.if_.children if c.has_const or c.enum is not None}
        if cond.if_.kind != Kind.OBJECT or not pins:
            return []
        # the `if`'s other conditions are met or not by chance: every variant's values are
        # checked against the whole node and re-drawn
        if cond.else_ is not None and cond.else_.kind in (Kind.OBJECT, Kind.ANY):
            missed = _missed_pin(node, pins)
            if missed is not None:
                variants.append(merge_object(node, cond.else_, {}, missed))
        then = cond.then
        if (
            then is not None
            and then.kind == Kind.CHOICE
            and then.choice_mode == ChoiceMode.ANY_OF
            and all(o.kind in (Kind.OBJECT, Kind.ANY) for o in then.options)
        ):
            thens: list[Node | None] = list(then.options)  # one variant per branch of the `then`
        elif then is None or then.kind in (Kind.OBJECT, Kind.ANY):
            thens = [then]
        else:
            return []
        variants.extend(merge_object(node, t, pins) for t in thens)
    variants.append(merge_object(node, None, {}))
    return variants


def _closed_names(node: Node) -> set[str] | None:
    """The only property names an object option admits, or None when it admits others too."""
    if (
        node.kind is not Kind.OBJECT
        or node.additional_properties
        or node.pattern_properties
        or node.additional is not None
        or any(not c.name for c in node.children)
    ):
        return None
    return {c.name for c in node.children}


def distinguished(options: list[Node]) -> list[Node]:
    """oneOf options narrowed so a value of one falls outside the others where that is cheap: an
    object option gets one of its properties made required when, without it, its values could
    also satisfy a closed sibling (`additionalProperties: false`) — the usual shape of
    `oneOf: [{properties: {step}}, {properties: {parallel}}]`, where `{}` would match every option."""
    options = apart_by_enum(any_apart(options))
    closed = [_closed_names(o) for o in options]
    if not any(c is not None for c in closed):
        return without_rival_keys(options)
    out: list[Node] = []
    for i, option in enumerate(options):
        if option.kind is not Kind.OBJECT or any(not c.name for c in option.children):
            out.append(option)
            continue
        required = {c.name for c in option.children if c.required}
        rivals = [
            names for j, names in enumerate(closed) if j != i and names is not None and not required - names
        ]  # nothing required yet keeps the value out of them
        if not rivals:
            out.append(option)
            continue
        # the optional property outside the most rivals; ties keep schema order. One whose presence
        # turns on an if/then (`dependencies: {format: {oneOf: ...}}`) comes last: made required, it
        # would hold the condition on in every record
        triggers = {c.name for cond in option.conditionals for c in cond.if_.children if c.required}
        candidates = [
            c for c in option.children if not c.required and any(c.name not in names for names in rivals)
        ]
        best = max(
            candidates,
            key=lambda c: (c.name not in triggers, sum(c.name not in names for names in rivals)),
            default=None,
        )
        if best is None:
            out.append(option)
            continue
        children = [replace(c, required=True) if c is best else c for c in option.children]
        out.append(replace(option, children=children))
    return without_rival_keys(out)


# kinds an unconstrained oneOf option may be narrowed to, each with a value to test the rivals with
_ANY_KINDS = ((Kind.BOOLEAN, True), (Kind.INTEGER, 7), (Kind.NUMBER, 0.5))


def any_apart(options: list[Node]) -> list[Node]:
    """An unconstrained oneOf option (`{}`, or keywords the loader ignores such as `typeof`) whose
    words another option accepts (`oneOf: [{type: string}, {type: object}, {typeof: function}]`)
    becomes a boolean, integer or number, whichever no rival accepts: any value matches it, so
    only a value outside every rival matches exactly one option."""
    out: list[Node] = []
    for i, option in enumerate(options):
        rivals = [o for j, o in enumerate(options) if j != i]
        if (
            option.kind is not Kind.ANY
            or option.negations
            or option.unsupported
            or _enum_of(option) is not None
            or not any(accepts(r, "value", {}) for r in rivals)
        ):
            out.append(option)
            continue
        kind = next((k for k, v in _ANY_KINDS if not any(accepts(r, v, {}) for r in rivals)), None)
        out.append(option if kind is None else replace(option, kind=kind))
    return out


def _enum_of(node: Node) -> list[Any] | None:
    return [node.const] if node.has_const else node.enum


def _outside(values: list[Any], rivals: list[Node]) -> list[Any]:
    return [v for v in values if not any(accepts(r, v, {}) for r in rivals)]


def apart_by_enum(options: list[Node]) -> list[Node]:
    """oneOf options told apart by enum/const (the draft-04 way to tag a branch): an option with
    an enum keeps only the values no other option accepts; an object option whose property has
    an enum, where every other option constrains that property too, has it made required with
    only the values the others refuse. Values then miss the other options by construction."""
    if not any(_enum_of(o) is not None or o.kind is Kind.OBJECT for o in options):
        return options
    out: list[Node] = []
    for i, option in enumerate(options):
        rivals = [o for j, o in enumerate(options) if j != i and o is not option]
        own = _enum_of(option)
        if own is not None and len(own) * len(rivals) > _APART_BUDGET:
            out.append(option)  # a long enum against many options: left to the re-draw check
            continue
        if own is not None and rivals:
            kept = _outside(own, rivals)
            if kept and len(kept) < len(own):
                option = replace(option, enum=kept, has_const=False, const=None)
            out.append(option)
            continue
        if option.kind is not Kind.OBJECT or not rivals:
            out.append(option)
            continue
        rival_children = [{c.name: c for c in r.children} if r.kind is Kind.OBJECT else {} for r in rivals]
        for child in option.children:
            values = _enum_of(child)
            if not child.name or values is None or len(values) * len(rivals) > _APART_BUDGET:
                continue
            theirs = [names.get(child.name) for names in rival_children]
            if any(t is None for t in theirs):
                continue  # a rival that leaves this property open accepts any value of it
            kept = _outside(values, [t for t in theirs if t is not None])
            if kept:
                pinned = replace(child, required=True, enum=kept, has_const=False, const=None)
                children = [pinned if c is child else c for c in option.children]
                option = replace(option, children=children)
                break
        out.append(option)
    return out


def without_rival_keys(options: list[Node]) -> list[Node]:
    """oneOf object options that differ by their required keys (`oneOf: [{required: [uses]},
    {required: [run]}]` over shared properties) leave out, in each option, one key that every
    rival requires, so a value drawn from one option fails the others instead of being re-drawn."""
    required = [
        {c.name for c in o.children if c.required}
        if o.kind is Kind.OBJECT and all(c.name for c in o.children)
        else None
        for o in options
    ]
    out: list[Node] = []
    for i, option in enumerate(options):
        mine = required[i]
        if mine is None:
            out.append(option)
            continue
        names = [c.name for c in option.children]
        drop: set[str] = set()
        for j, theirs in enumerate(required):
            if j == i or not theirs:
                continue
            extra = [k for k in names if k in theirs and k not in mine]
            if not extra or any(k in drop for k in extra) or len(theirs - mine) > len(extra):
                continue  # already kept out, or the rival requires a key this option never draws
            drop.add(extra[0])
        for _ in range(8):  # keys whose dependentRequired needs a dropped key go too
            more = {k for k, needs in option.dependent_required.items() if drop.intersection(needs)} - drop
            if not more:
                break
            drop |= more
        if (
            not drop
            or drop & mine
            or (option.min_properties and len(names) - len(drop) < option.min_properties)
        ):
            out.append(option)
            continue
        out.append(replace(option, children=[c for c in option.children if c.name not in drop]))
    return out


def array_variants(node: Node) -> list[Node]:
    """The array without its conditions and `contains`, plus one copy per `then`/`else` branch
    that narrows the item count (the usual `then: {maxItems: 1}`)."""
    plain = replace(node, conditionals=[], contains=None, min_contains=None, max_contains=None)
    variants: list[Node] = []
    for cond in node.conditionals:
        for branch in (cond.then, cond.else_):
            if branch is None or branch.kind is not Kind.ARRAY:
                continue
            lo = max(x for x in (plain.min_items, branch.min_items, 0) if x is not None)
            his = [x for x in (plain.max_items, branch.max_items) if x is not None]
            hi = min(his) if his else None
            if hi is not None and lo > hi:
                continue
            variants.append(
                replace(
                    plain,
                    min_items=lo or plain.min_items,
                    max_items=hi,
                    unique_items=plain.unique_items or branch.unique_items,
                )
            )
    contains = node.contains
    values = None if contains is None else [contains.const] if contains.has_const else contains.enum
    if values and node.items is not None and not node.prefix_items:
        # `contains: {const: x}` (or an enum): one variant draws every item from those values
        fit = [v for v in values if accepts(node.items, v, {})]
        lo = max(plain.min_items or 0, 1 if node.min_contains is None else node.min_contains)
        hi = (
            plain.max_items
            if node.max_contains is None
            else min(x for x in (plain.max_items, node.max_contains) if x is not None)
        )
        if fit and (hi is None or lo <= hi) and not (plain.unique_items and len(fit) < lo):
            items = replace(node.items, enum=fit, has_const=False, const=None)
            variants.append(replace(plain, items=items, min_items=lo, max_items=hi))
    variants.extend(_counted_variants(node, plain))
    variants.append(plain)
    return variants


def _counted_variants(node: Node, plain: Node) -> list[Node]:
    """`contains` with minContains/maxContains built on purpose: the first k items drawn from the
    `contains` schema (the loader made it the conjunction with `items`), the rest from `items`
    kept outside `contains` when maxContains bounds the count; k = minContains (and one more)."""
    contains, items = node.contains, node.items
    if contains is None or items is None or node.prefix_items:
        return []
    k_lo = 1 if node.min_contains is None else node.min_contains
    k_hi = node.max_contains
    if k_hi is not None and k_lo > k_hi:
        return []
    rest = items if k_hi is None else replace(items, negations=[*items.negations, contains])
    out: list[Node] = []
    for k in dict.fromkeys((k_lo, k_lo + 1 if k_hi is None or k_lo < k_hi else k_lo)):
        lo, hi = max(plain.min_items or 0, k), plain.max_items
        if hi is not None and lo > hi:
            continue
        out.append(replace(plain, prefix_items=[contains] * k, items=rest, min_items=lo, max_items=hi))
    return out


def json_types(node: Node, definitions: dict[str, Node], depth: int = 0) -> set[str] | None:
    """JSON types a node's values can have (None: unknown / any)."""
    k = node.kind
    if k == Kind.REF:
        target = definitions.get(node.ref or "")
        if target is None or depth > 20:
            return None
        inner = json_types(target, definitions, depth + 1)
        return None if inner is None else inner | ({"null"} if node.nullable else set())
    if k == Kind.ANY:
        return None
    if k == Kind.CHOICE:
        out: set[str] = set()
        for o in node.options:
            t = json_types(o, definitions, depth + 1)
            if t is None:
                return None
            out |= t
        return out
    base = {
        Kind.INTEGER: {"number"},
        Kind.NUMBER: {"number"},
        Kind.OBJECT: {"object"},
        Kind.ARRAY: {"array"},
        Kind.BOOLEAN: {"boolean"},
        Kind.NULL: {"null"},
    }.get(k, {"string"})
    return base | ({"null"} if node.nullable else set())


def may_overlap(options: list[Node], definitions: dict[str, Node]) -> bool:
    maybe = [json_types(o, definitions) for o in options]
    types = [t for t in maybe if t is not None]
    if len(types) < len(maybe):  # an option of unknown types
        return True
    for i in range(len(types)):
        for j in range(i + 1, len(types)):
            if types[i] & types[j]:
                return True
    return False
