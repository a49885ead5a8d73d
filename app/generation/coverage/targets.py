"""Coverage targets read off a compiled generator tree (the field model with the constraint set's
rules applied: a rule's `values` narrow an enum, its `min`/`max` move a bound), each with the pins
that force it and the probe that tells whether a record meets it.

Pointers are JSON Pointers; `*` stands for "some item" of an array. XSD records print as location
paths of local names (`/a/b/@attr`), where an element path already selects every occurrence."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from app.generation.coverage.leaf_values import (
    _equal_lexical,
    _equals,
    _jsonable,
    _lexically,
    _list_length,
    _plain,
    _str_length,
    _string_of_length,
)
from app.generation.engine.arrays import ArrayGen
from app.generation.engine.choices import ChoiceGen
from app.generation.engine.generators import Gen, LeafGen
from app.generation.engine.matcher import accepts
from app.generation.engine.objects import ObjectGen
from app.generation.limits import MAX_FIELD_CHARS
from app.generation.model import FieldTree, Kind, Node
from app.generation.values.strings import StringGenerator

KINDS = ("enum", "boolean", "branch", "presence", "null", "bound", "pair")
ITEM = "*"  # pointer segment: some item of the array


@dataclass(frozen=True)
class PinKey:
    """One forced outcome's place: a generator's pin table at a row address (see `row_key`)."""

    gen: int  # id() of the generator
    table: str  # Pins field: values, nulls, branch, present, lengths
    address: tuple[tuple[int, int], ...]  # (cap, position) of each enclosing array, outermost first
    slot: int = -1  # the object slot for `present`
    # computed once: packing a set looks keys up millions of times (ncml: 3 M)
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.gen, self.table, self.address, self.slot)))

    def __hash__(self) -> int:
        return self._hash


PinSet = dict[PinKey, Any]


def row_key(record: int, address: tuple[tuple[int, int], ...]) -> int:
    """The row key of a position: the engine keys an item `parent * cap + position`."""
    key = record
    for cap, pos in address:
        key = key * cap + pos
    return key


@dataclass(frozen=True)
class AtLeast:
    """A length pin that only asks for enough items (an item's position must exist)."""

    items: int


def _agree(a: Any, b: Any) -> bool:
    if isinstance(a, AtLeast) or isinstance(b, AtLeast):
        if isinstance(a, AtLeast) and isinstance(b, AtLeast):
            return True
        need, exact = (a, b) if isinstance(a, AtLeast) else (b, a)
        return isinstance(exact, int) and exact >= need.items
    return bool(a == b)


def compatible(a: PinSet, b: PinSet) -> bool:
    small, big = (a, b) if len(a) <= len(b) else (b, a)
    return all(k not in big or _agree(big[k], v) for k, v in small.items())


def merge(into: PinSet, more: PinSet) -> None:
    """`into` with `more` added (compatible sets): an exact length wins over an AtLeast."""
    for k, v in more.items():
        old = into.get(k)
        if old is None or (isinstance(old, AtLeast) and not isinstance(v, AtLeast)):
            into[k] = v
        elif isinstance(old, AtLeast) and isinstance(v, AtLeast):
            into[k] = AtLeast(max(old.items, v.items))


@dataclass(eq=False)
class Target:
    pointer: str
    kind: str
    value: Any
    pins: PinSet | None  # None: no valid record can reach it (see `reason`)
    probe: Callable[[Any], bool] | None = None  # does this record meet it?
    keyword: str | None = None  # bound: the schema keyword (minimum, maxLength, maxOccurs, ...)
    reason: str | None = None
    factor: str | None = None  # pairwise: the finite-domain field it is a level of
    record: int | None = None  # the coverage record meeting it (set by the set builder)
    # other pin sets to try when the records show the first missed it (if/then/else outcomes)
    alternatives: list[PinSet] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pointer": self.pointer, "kind": self.kind, "value": _jsonable(self.value)}
        if self.keyword is not None:
            out["keyword"] = self.keyword
        out["record"] = self.record
        if self.record is None:
            out["reason"] = self.reason or "no record of the set meets it"
        return out


# -- probes: where a pointer leads in a record ------------------------------------------------

_MISSING = object()


def _places(record: Any, segs: tuple[str, ...]) -> Iterator[Any]:
    """The values at `segs` (each item for `*`); _MISSING where the last step's key is absent.
    Steps through absent or null parents yield nothing."""
    if not segs:
        yield record
        return
    head, rest = segs[0], segs[1:]
    if head == ITEM:
        if isinstance(record, list):
            for item in record:
                yield from _places(item, rest)
        return
    if isinstance(record, dict):
        if head in record:
            yield from _places(record[head], rest)
        elif not rest:
            yield _MISSING


def value_probe(segs: tuple[str, ...], test: Callable[[Any], bool]) -> Callable[[Any], bool]:
    def probe(record: Any) -> bool:
        return any(v is not _MISSING and test(v) for v in _places(record, segs))

    return probe


def presence_probe(segs: tuple[str, ...], present: bool) -> Callable[[Any], bool]:
    def probe(record: Any) -> bool:
        return any((v is not _MISSING) == present for v in _places(record, segs))

    return probe


# -- the walk ----------------------------------------------------------------------------------


@dataclass
class _At:
    segs: tuple[str, ...]
    address: tuple[tuple[int, int], ...]
    path_pins: PinSet  # what must hold for this position to exist (parents present, branches taken)
    in_array: bool = False
    # inside a repeated model group (XSD): its elements are lists under their names in the record
    spread: bool = False

    def step(self, name: str) -> tuple[str, ...]:
        return (*self.segs, name, ITEM) if self.spread else (*self.segs, name)


@dataclass
class Derivation:
    targets: list[Target] = field(default_factory=list)
    gens: dict[int, Gen] = field(default_factory=dict)  # id -> generator, for installing pins
    reached: set[str] = field(default_factory=set)  # model paths with a generator
    walked: set[int] = field(default_factory=set)


def derive(root: Gen, tree: FieldTree, *, xsd: bool, seed: int = 0) -> Derivation:
    """Every target of the record (each kind of KINDS but `pair`), reachable or not."""
    d = Derivation()
    _walk(d, root, _At((), (), {}), xsd, seed, 0)
    _unreached(d, tree, xsd)
    return d


def pointer_text(segs: tuple[str, ...], xsd: bool) -> str:
    shown = [s for s in segs if not (xsd and s == ITEM)]
    return "/" + "/".join(s.replace("~", "~0").replace("/", "~1") for s in shown) if shown else ""


def _pin(d: Derivation, gen: Gen, table: str, at: _At, value: Any, slot: int = -1) -> PinSet:
    d.gens[id(gen)] = gen
    return {**at.path_pins, PinKey(id(gen), table, at.address, slot): value}


def _walk(d: Derivation, gen: Gen | None, at: _At, xsd: bool, seed: int, depth: int) -> None:
    # a generator shared by several positions (recursion points, see compiler.shared) gets its
    # targets at the first position reached: its pins would act at every position anyway
    if gen is None or depth > 60 or id(gen) in d.walked:
        return
    d.walked.add(id(gen))
    d.gens[id(gen)] = gen
    node = gen.node
    if node.path:
        d.reached.add(node.path)
    ptr = pointer_text(at.segs, xsd)
    if node.nullable and not isinstance(gen, LeafGen | ObjectGen | ArrayGen | ChoiceGen):
        pass
    elif node.nullable and not (isinstance(gen, LeafGen) and gen.always_null):
        for null in (True, False):
            d.targets.append(
                Target(
                    ptr,
                    "null",
                    null,
                    _pin(d, gen, "nulls", at, null),
                    value_probe(at.segs, (lambda v: v is None) if null else (lambda v: v is not None)),
                )
            )
    # inside the value: it is not null
    inner = replace(at, path_pins=_pin(d, gen, "nulls", at, False) if node.nullable else at.path_pins)
    if isinstance(gen, LeafGen):
        _leaf(d, gen, inner, xsd, seed)
    elif isinstance(gen, ObjectGen):
        for i, slot in enumerate(gen.slots):
            if slot.gen is None:
                continue
            named = bool(slot.name) and not (slot.gen.name == "" and slot.gen.group)
            segs = inner.step(slot.name) if named else inner.segs
            child = replace(inner, segs=segs, path_pins=dict(inner.path_pins), spread=inner.spread and not named)
            if not slot.required:
                child.path_pins[PinKey(id(gen), "present", inner.address, i)] = True
                # keys the compiler added to meet minProperties are no schema property
                if named and node.child(slot.name) is not None:
                    cptr = pointer_text(segs, xsd)
                    for on in (True, False):
                        d.targets.append(
                            Target(
                                cptr,
                                "presence",
                                on,
                                _pin(d, gen, "present", inner, on, i),
                                presence_probe(segs[:-1] if inner.spread else segs, on),
                                factor=None if inner.in_array else f"presence:{cptr}",
                            )
                        )
            _walk(d, slot.gen, child, xsd, seed, depth + 1)
    elif isinstance(gen, ArrayGen):
        _array(d, gen, inner, xsd, seed, depth)
    elif isinstance(gen, ChoiceGen):
        _choice(d, gen, inner, xsd, seed, depth)


def _leaf(d: Derivation, gen: LeafGen, at: _At, xsd: bool, seed: int) -> None:
    ptr = pointer_text(at.segs, xsd)
    factor = None if at.in_array else f"value:{ptr}"
    if gen.choices is not None:
        _enum_targets(d, gen, at, ptr, factor)
    elif gen.boolean:
        _boolean_targets(d, gen, at, ptr, factor)
    elif gen.always_null or gen.spec is None:
        return
    elif isinstance(gen.values_gen, StringGenerator):
        _length_targets(d, gen, gen.values_gen, at, ptr, seed)
    else:
        _bound_targets(d, gen, at, ptr, xsd)


def _enum_targets(d: Derivation, gen: LeafGen, at: _At, ptr: str, factor: str | None) -> None:
    assert gen.choices is not None
    texts: list[str | None] = [None] * len(gen.choices)
    if gen.choice_text is not None:
        texts = list(gen.choice_text)
    for v, t in zip(gen.choices, texts, strict=True):
        plain = _plain(v)
        d.targets.append(
            Target(
                ptr,
                "enum",
                plain,
                _pin(d, gen, "values", at, (v, t)),
                value_probe(at.segs, _equals(plain)),
                factor=factor if len(gen.choices) > 1 else None,
            )
        )
    _unmet_enum(d, gen, ptr)


def _boolean_targets(d: Derivation, gen: LeafGen, at: _At, ptr: str, factor: str | None) -> None:
    for b in (True, False):
        d.targets.append(
            Target(
                ptr,
                "boolean",
                b,
                _pin(d, gen, "values", at, (b, "true" if b else "false")),
                value_probe(at.segs, _equals(b)),
                factor=factor,
            )
        )


def _length_targets(
    d: Derivation, gen: LeafGen, vg: StringGenerator, at: _At, ptr: str, seed: int
) -> None:
    spec, node = gen.spec, gen.node
    assert spec is not None  # _leaf: a leaf with no spec has no length targets
    for keyword, length in (("minLength", spec.min_length), ("maxLength", spec.max_length)):
        if length is None or (keyword == "minLength" and node.min_length is None and length == 0):
            continue
        value: str | None
        reason: str | None
        if length > MAX_FIELD_CHARS:
            # drawing it would hold a block of such strings (maxLength 2**31-1 is common)
            value, reason = None, f"a value of {int(length):,} characters is above the limit of {MAX_FIELD_CHARS:,} a field may cost a record"
        else:
            value, reason = _string_of_length(vg, spec, int(length), seed)
        d.targets.append(
            Target(
                ptr,
                "bound",
                int(length),
                None if value is None else _pin(d, gen, "values", at, (value, value)),
                value_probe(at.segs, _str_length(int(length))),
                keyword=keyword,
                reason=reason,
            )
        )


def _bound_targets(d: Derivation, gen: LeafGen, at: _At, ptr: str, xsd: bool) -> None:
    spec, vg = gen.spec, gen.values_gen
    assert spec is not None  # _leaf: a leaf with no spec has no bound targets
    if vg is None or not hasattr(vg, "edge_values"):
        return
    lo_kw = "minExclusive" if xsd and spec.exclusive_minimum else "exclusiveMinimum" if spec.exclusive_minimum else "minInclusive" if xsd else "minimum"
    hi_kw = "maxExclusive" if xsd and spec.exclusive_maximum else "exclusiveMaximum" if spec.exclusive_maximum else "maxInclusive" if xsd else "maximum"
    if spec.minimum is None and spec.maximum is None:
        return
    try:
        edges = vg.edge_values()
    except Exception as exc:  # a range no value meets: the bounds are reported unreachable
        edges, why = None, str(exc)
    else:
        why = "no value meets the field's facets"
    values = list(edges.values) if edges is not None else []
    texts = list(edges.text) if edges is not None and edges.text is not None else [None] * len(values)
    ends = [("lo", spec.minimum, lo_kw, 0), ("hi", spec.maximum, hi_kw, -1)]
    for _, bound, keyword, idx in ends:
        if bound is None:
            continue
        if not values:
            d.targets.append(Target(ptr, "bound", _plain(bound), None, None, keyword=keyword, reason=why))
            continue
        v, t = values[idx], texts[idx]
        plain = _plain(v)
        d.targets.append(
            Target(
                ptr,
                "bound",
                plain,
                _pin(d, gen, "values", at, (v, t)),
                value_probe(at.segs, _lexically(plain)),
                keyword=keyword,
            )
        )


def _unmet_enum(d: Derivation, gen: LeafGen, ptr: str) -> None:
    """Listed values the compiler dropped (they fail another facet, or a rule left them out)."""
    node = gen.node
    listed = list(node.enum) if node.enum is not None and not node.has_const else []
    kept = [_plain(c) for c in gen.choices or []]
    for v in listed:
        if not any(_equal_lexical(_plain(v), k) for k in kept):
            reason = (
                "the constraint set's values leave it out"
                if accepts(node, v, {})
                else "it does not meet the field's other facets"
            )
            d.targets.append(Target(ptr, "enum", _plain(v), None, None, reason=reason))


def _array(d: Derivation, gen: ArrayGen, at: _At, xsd: bool, seed: int, depth: int) -> None:
    ptr = pointer_text(at.segs, xsd)
    node = gen.node
    explicit = [
        ("minOccurs" if xsd else "minItems", node.min_items, gen.min_items),
        ("maxOccurs" if xsd else "maxItems", node.max_items, gen.max_items),
    ]
    for keyword, declared, compiled in explicit:
        if declared is None or (keyword in ("minItems", "minOccurs") and declared == 0 and xsd is False):
            continue
        if declared != compiled and not (keyword in ("maxItems", "maxOccurs") and declared <= gen.cap):
            reason = f"the generator draws at most {gen.cap} items here"
            d.targets.append(Target(ptr, "bound", declared, None, None, keyword=keyword, reason=reason))
            continue
        group = gen.name == ""
        d.targets.append(
            Target(
                ptr,
                "bound",
                declared,
                _pin(d, gen, "lengths", at, declared),
                _group_count_probe(at.segs, _group_names(gen.item), declared)
                if group
                else value_probe(at.segs, _list_length(declared)),
                keyword=keyword,
            )
        )
    cap = gen.cap
    gens = [*gen.prefix, *([gen.item] if gen.item is not None else [])]
    for pos, g in enumerate(gens):
        length = max(gen.min_items, pos + 1)
        if length > cap:
            continue
        pins = _pin(d, gen, "lengths", at, AtLeast(length))
        if gen.name == "":  # a repeated group: no level of its own in the record
            item = replace(at, address=(*at.address, (cap, pos)), path_pins=pins, in_array=True, spread=True)
        else:
            segs = (*at.segs, str(pos) if pos < len(gen.prefix) else ITEM)
            item = _At(segs, (*at.address, (cap, pos)), pins, True)
        _walk(d, g, item, xsd, seed, depth + 1)


def _group_count_probe(segs: tuple[str, ...], names: list[str], count: int) -> Callable[[Any], bool]:
    """A repeated group's length: its elements' occurrences in the parent element."""

    def probe(record: Any) -> bool:
        for v in _places(record, segs):
            if isinstance(v, dict):
                got = sum(len(x) if isinstance(x, list) else 1 for n in names if (x := v.get(n)) is not None)
                if got == count:
                    return True
        return False

    return probe


def _choice(d: Derivation, gen: ChoiceGen, at: _At, xsd: bool, seed: int, depth: int) -> None:
    ptr = pointer_text(at.segs, xsd)
    if gen.must_match is not None:
        # if/then/else variants or `contains` windows: each outcome is judged on the records
        _outcomes(d, gen, at, xsd, seed, depth)
        return
    node = gen.node
    live = [i for i, o in enumerate(gen.options) if o is not None]
    for i, opt in enumerate(gen.options):
        label = _option_label(gen, i)
        if opt is None:
            d.targets.append(
                Target(ptr, "branch", label, None, None, reason="no value of this option can be generated")
            )
            continue
        pins = _pin(d, gen, "branch", at, i)
        probe = _branch_probe(gen, i, at.segs)
        d.targets.append(
            Target(
                ptr,
                "branch",
                label,
                pins,
                probe,
                factor=None if at.in_array or len(live) < 2 else f"branch:{ptr}",
            )
        )
        inside = replace(at, path_pins=pins)
        if gen.group and opt.name and not (opt.name == "" and opt.group):
            # an element chosen inside a group sits under its name
            inside = replace(inside, segs=at.step(opt.name), spread=False)
        _walk(d, opt, inside, xsd, seed, depth + 1)
    del node


def _option_label(gen: ChoiceGen, i: int) -> str:
    opt = gen.node.options[i] if i < len(gen.node.options) else None
    g = gen.options[i]
    name = (g.name if g is not None and g.name else None) or (opt.name if opt is not None else None)
    return f"{i}:{name}" if name else str(i)


def _branch_probe(gen: ChoiceGen, i: int, segs: tuple[str, ...]) -> Callable[[Any], bool]:
    opt_gen = gen.options[i]
    opt_node = gen.node.options[i] if i < len(gen.node.options) else None
    defs = gen.definitions
    if gen.group:
        names = _group_names(opt_gen)
        others = {n for k, g in enumerate(gen.options) if k != i for n in _group_names(g)}
        mine = [n for n in names if n not in others]

        def group_probe(record: Any) -> bool:
            return any(isinstance(v, dict) and any(n in v for n in mine) for v in _places(record, segs))

        return group_probe
    from app.generation.engine.generators import plain_json

    def probe(record: Any) -> bool:
        for v in _places(record, segs):
            if v is _MISSING or opt_node is None:
                continue
            if accepts(opt_node, plain_json(v), defs):
                return True
        return False

    return probe


def _group_names(g: Gen | None) -> list[str]:
    if g is None:
        return []
    if g.name and not (g.name == "" and g.group):
        return [g.name]
    if isinstance(g, ObjectGen):
        return [n for s in g.slots if s.gen is not None for n in ([s.name] if s.name else _group_names(s.gen))]
    if isinstance(g, ChoiceGen):
        return [n for o in g.options for n in _group_names(o)]
    return []


def _outcomes(d: Derivation, gen: ChoiceGen, at: _At, xsd: bool, seed: int, depth: int) -> None:
    """if/then/else: the `then` and the `else` outcome of each condition; a variant of the object
    per condition is what the engine draws (variants.condition_variants), so each variant is a
    way to try for an outcome: the records tell which was met."""
    ptr = pointer_text(at.segs, xsd)
    node = gen.node
    defs = gen.definitions
    for j, cond in enumerate(node.conditionals):
        for outcome in ("then", "else"):
            want = outcome == "then"

            def probe(record: Any, cond: Any = cond, want: bool = want) -> bool:
                from app.generation.engine.generators import plain_json

                return any(
                    isinstance(v, dict) and accepts(cond.if_, plain_json(v), defs) == want
                    for v in _places(record, at.segs)
                )

            live = [i for i, o in enumerate(gen.options) if o is not None]
            order = live if want else list(reversed(live))
            # first try: the variant most likely to give this outcome; the set builder tries
            # the others (`alternatives`) when the records show it missed
            d.targets.append(
                Target(
                    ptr,
                    "branch",
                    f"if[{j}]:{outcome}",
                    _pin(d, gen, "branch", at, order[0]),
                    probe,
                    alternatives=[_pin(d, gen, "branch", at, k) for k in order[1:]] + [dict(at.path_pins)],
                )
            )
    for i, opt in enumerate(gen.options):
        if opt is not None:
            _walk(d, opt, replace(at, path_pins=_pin(d, gen, "branch", at, i)), xsd, seed, depth + 1)


def _unreached(d: Derivation, tree: FieldTree, xsd: bool) -> None:
    """Model fields with targets but no generator: the recursion cap or unsatisfiable facets left
    them out. Reported once per field, as the targets it would have had."""
    seen: set[str] = set()

    def visit(node: Node, segs: tuple[str, ...], depth: int) -> None:
        if depth > 12:
            return
        if node.path and node.path not in d.reached and node.path not in seen:
            seen.add(node.path)
            ptr = pointer_text(segs, xsd)
            reason = "no generator reaches this field (recursion depth cap or facets no value meets)"
            if node.enum is not None:
                for v in node.enum:
                    d.targets.append(Target(ptr, "enum", _plain(v), None, None, reason=reason))
            elif node.kind is Kind.BOOLEAN:
                for b in (True, False):
                    d.targets.append(Target(ptr, "boolean", b, None, None, reason=reason))
            elif not node.required:
                d.targets.append(Target(ptr, "presence", True, None, None, reason=reason))
            return
        for c in node.children:
            visit(c, (*segs, c.name) if c.name else segs, depth + 1)
        if node.items is not None:
            visit(node.items, (*segs, ITEM), depth + 1)
        for o in node.options:
            visit(o, (*segs, o.name) if o.name and node.name == "" else segs, depth + 1)

    visit(tree.root, (), 0)
