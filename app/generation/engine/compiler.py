"""Field model + constraint rules + params -> the generator tree (`generators.py`).
Design notes: docs/generation.md."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from decimal import Decimal
from typing import Any, NoReturn

import orjson

from app.generation.engine.arrays import ArrayGen
from app.generation.engine.budget import MAX_DRAW_WORK, draw_work, fit_record_budget
from app.generation.engine.choices import ChoiceGen
from app.generation.engine.expansion_floor import dead_reason, expansion_floor
from app.generation.engine.generators import (
    OPTIONAL_PRESENCE,
    AnyGen,
    Gen,
    LeafGen,
    hash_key,
)
from app.generation.engine.matcher import accepts
from app.generation.engine.objects import ChildSlot, ObjectGen, country_pivot
from app.generation.engine.uniqueness import default_uniqueness
from app.generation.engine.units import plan_units
from app.generation.engine.variants import (
    array_variants,
    condition_variants,
    distinguished,
    extra_properties,
    may_overlap,
    set_null_rate,
)
from app.generation.errors import Unsatisfiable
from app.generation.model import SCALAR_KINDS, ChoiceMode, FieldTree, Kind, LeafSpec, Node, required_names
from app.generation.values.categories import CATEGORIES, FieldSemantics
from app.generation.values.numbers import NumberGenerator
from app.generation.values.strings import StringGenerator
from app.generation.values.temporal import TemporalGenerator

MAX_REF_DEPTH = 3
MAX_COMPILED_NODES = 100_000
DEFAULT_NULL_RATE = 0.1
# arrays without maxItems get at most this many items beyond minItems
ARRAY_SPREAD = 3
_JSON_KIND = {
    Kind.STRING: "string",
    Kind.DATE: "string",
    Kind.DATETIME: "string",
    Kind.TIME: "string",
    Kind.INTEGER: "integer",
    Kind.NUMBER: "number",
    Kind.BOOLEAN: "boolean",
    Kind.NULL: "null",
}
_DATE_FORMATS = {"date": Kind.DATE, "date-time": Kind.DATETIME, "time": Kind.TIME}


def _json_ready(v: Any) -> Any:
    if isinstance(v, Decimal):
        return int(v) if v == v.to_integral_value() and abs(v) < 2**63 else orjson.Fragment(str(v))
    if isinstance(v, list):
        return [_json_ready(x) for x in v]
    if isinstance(v, dict):
        return {k: _json_ready(x) for k, x in v.items()}
    return v


def _lexical(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, Decimal):
        return str(v)
    return orjson.dumps(_json_ready(v)).decode()


def _rule_get(rule: Any, name: str) -> Any:
    if rule is None:
        return None
    if isinstance(rule, Mapping):
        return rule.get(name)
    return getattr(rule, name, None)


def _tighter(a: Any, b: Any, pick_max: bool) -> Any:
    """The tighter of two bounds (numbers as Decimal, dates as ISO strings)."""
    if a is None:
        return b
    if b is None:
        return a
    try:
        da, db = Decimal(str(a)), Decimal(str(b))
        return a if (da >= db) == pick_max else b
    except ArithmeticError:
        return a if (str(a) >= str(b)) == pick_max else b


class _TooLarge(Exception):
    """The expansion exceeded MAX_COMPILED_NODES at the current recursion depth."""


class Compiler:
    def __init__(
        self,
        tree: FieldTree,
        rules: Sequence[Any],
        *,
        xsd: bool,
        null_rate: float | None,
        record_count: int,
        assertion_render: Callable[[ObjectGen], Any] | None = None,
    ) -> None:
        self.tree = tree
        self.assertion_render = assertion_render  # the XML renderer xs:assert checks read (see ObjectGen)
        self.rules = {(_rule_get(r, "path") or ""): r for r in rules}
        self.xsd = xsd
        self.null_rate = DEFAULT_NULL_RATE if null_rate is None else null_rate
        self.record_count = record_count
        self.count = 0
        self.max_depth = MAX_REF_DEPTH
        # (ref, depth, slot name, null rate) -> compiled target, when recursion points share generators
        self.shared: dict[tuple[str, int, str, float], Gen | None] | None = None
        self.dead: list[str] = []  # why a field could not be generated (the first one is reported)
        self.semantics = FieldSemantics(tree)  # name-and-context categories (also shown by /repr)
        # a scalar node's spec and value generator, made at its first position: recursion points
        # and shared types compile the same node many times (UBL 2.1 Invoice: 118,000 string
        # fields from 19,000 nodes), and both follow from the node and its rule alone. Keyed by
        # the node itself (identity), which keeps it alive, so its id is never reused
        self._scalars: dict[Node, tuple[LeafSpec, Any]] = {}
        self._no_units: set[tuple[Any, ...]] = set()  # leaf sets without units (`plan_units`)

    # -- entry -----------------------------------------------------------------------------

    def compile(self) -> Gen:
        root = self.tree.root
        if root.xml is not None and root.xml.abstract:
            raise Unsatisfiable(
                f"{self.tree.root_name}: the root element is abstract, so no document can use it "
                f"directly (only a member of its substitution group); choose a concrete root."
            )
        # wide recursive schemas expand exponentially with depth: retry shallower before giving up;
        # then again with one generator per (recursion point, depth) shared by every position that
        # reaches it (a DAG instead of a tree: linear in the definitions, values still valid)
        # a record drawing more than MAX_DRAW_WORK values is compiled one level shallower; the
        # deeper one is kept for when the shallower record cannot terminate
        deeper: tuple[Gen, int, dict[tuple[str, int, str, float], Gen | None] | None, list[str]] | None = None
        for shared in (False, True):
            for cap in range(MAX_REF_DEPTH, 0, -1):
                self.max_depth = cap
                self.count = 0
                self.shared = {} if shared else None
                floor = expansion_floor(self, self.tree.root)
                if floor is not None and floor > MAX_COMPILED_NODES:
                    continue  # it would raise _TooLarge, after building that many generators
                try:
                    gen = self.node(self.tree.root, "", 0, self.tree.root_name)
                except _TooLarge:
                    continue
                if gen is None and deeper is not None:
                    gen, self.max_depth, self.shared, self.dead = deeper
                elif gen is None:
                    if self.dead:
                        raise Unsatisfiable(f"{self.dead[0]}.")
                    raise Unsatisfiable(f"{self.tree.root_name}: the record's recursion cannot terminate.")
                elif cap > 1 and draw_work(gen) > MAX_DRAW_WORK:
                    deeper = (gen, cap, self.shared, list(self.dead))
                    continue
                fit_record_budget(gen)
                if isinstance(gen, ObjectGen):
                    gen.country_pivot = country_pivot(gen)
                return gen
        raise Unsatisfiable(
            f"The schema expands to more than {MAX_COMPILED_NODES} generated fields, even with "
            f"recursion limited to one level and shared between positions."
        )

    # -- nodes -----------------------------------------------------------------------------

    def node(self, node: Node, pos: str, depth: int, name: str | None = None) -> Gen | None:
        self.count += 1
        if self.count > MAX_COMPILED_NODES:
            raise _TooLarge
        key = hash_key(pos)
        slot_name = node.name if name is None else name
        if node.kind == Kind.REF:
            if depth >= self.max_depth:
                return None
            target = self.tree.definitions.get(node.ref or "")
            if target is None:
                return None  # an unresolved recursion point: treated like the depth cap
            memo = (node.ref or "", depth, slot_name, self._null_rate(node))
            if self.shared is not None and memo in self.shared:
                return self.shared[memo]
            inner = self.node(target, pos + "~", depth + 1, slot_name)
            if inner is not None and node.nullable:
                set_null_rate(inner, self._null_rate(node))
            if self.shared is not None:
                self.shared[memo] = inner
            return inner
        dead = dead_reason(node)
        if dead is not None:
            # `not: {}` next to other keywords, an xs:assert, or content the generator cannot make
            # (a required xs:any): the field can only be absent
            self.dead.append(f"{node.path or slot_name}: {dead}")
            return None
        rule = self.rules.get(node.path) if node.path else None
        fixed = node.xml is not None and node.xml.fixed is not None and node.kind in SCALAR_KINDS
        if node.has_const or node.enum is not None or fixed or _rule_get(rule, "enum") is not None:
            return self.choice_leaf(node, rule, key, slot_name)
        k = node.kind
        if k == Kind.OBJECT:
            return self.object(node, pos, depth, key, slot_name)
        if k == Kind.ANY:
            if node.negations or any(
                "no value is valid" in u or "not modelled" in u for u in node.unsupported
            ):
                # `false`, `not: {}`, a `not` of an unconstrained value, or a subtree the loader cut
                # off: we cannot know what fits, so the value is left out where the schema allows
                return None
            return AnyGen(node, key, slot_name, self._null_rate(node, rule))
        gen: ArrayGen | ChoiceGen | LeafGen | None
        if k == Kind.ARRAY:
            gen = self.array(node, pos, depth, key, slot_name)
        elif k == Kind.CHOICE:
            gen = self.choice(node, pos, depth, key, slot_name)
        else:
            try:
                gen = self.scalar(node, rule, key, slot_name)
            except Unsatisfiable as exc:
                # facets no value meets: an optional field or a choice option is left out; a
                # required one fails with this reason (the first dead reason is reported)
                self.dead.append(str(exc).removesuffix("."))
                return None
        if gen is not None and node.negations:
            gen.negations = list(node.negations)
        return gen

    def _null_rate(self, node: Node, rule: Any = None) -> float:
        if not node.nullable:
            return 0.0
        rate = _rule_get(rule, "null_rate")
        return float(rate) if rate is not None else self.null_rate

    def object(self, node: Node, pos: str, depth: int, key: int, name: str) -> Gen | None:
        if node.conditionals:
            variants = condition_variants(node)
            if variants:
                options = [
                    self.object(v, f"{pos}?{i}", depth, hash_key(f"{pos}?{i}"), name)
                    for i, v in enumerate(variants)
                ]
                if any(o is not None for o in options):
                    return ChoiceGen(
                        node,
                        key,
                        name,
                        options,
                        self.tree.definitions,
                        null_rate=self._null_rate(node, self.rules.get(node.path)),
                        must_match=node,
                    )
        slots: list[ChildSlot] = []
        for child in node.children:
            g = self.node(child, f"{pos}/{child.name or '#' + str(len(slots))}", depth)
            rule = self.rules.get(child.path)
            if g is None:
                if child.required and child.name and child.nullable:
                    g = LeafGen(
                        child, hash_key(pos + "/" + child.name), child.name, None, "null", always_null=True
                    )
                elif child.required:
                    return None  # cannot terminate here: let the parent choose another way
            presence = OPTIONAL_PRESENCE
            rate = _rule_get(rule, "null_rate")
            ruled = not child.required and not child.nullable and rate is not None
            if ruled:
                presence = 1.0 - float(rate)  # a null rate on a non-nullable optional field means absence
            slots.append(
                ChildSlot(
                    g, child.name, child.required or (g is not None and not child.name), presence, ruled=ruled
                )
            )
        if node.min_properties and self._open_slots(node, pos, depth, slots) < node.min_properties:
            _fail(
                node,
                f"minProperties {node.min_properties} cannot be met: too few properties can be generated",
            )
        gen = ObjectGen(
            node,
            key,
            name,
            slots,
            self._null_rate(node, self.rules.get(node.path)),
            group=(node.name == "" and name == ""),
            definitions=self.tree.definitions,
            assertion_check=node.xml.assertion_check if node.xml is not None else None,
            assertion_render=self.assertion_render,
        )
        after = (
            {c.path: _rule_get(self.rules.get(c.path), "after") for c in node.children} if self.rules else {}
        )
        gen.units = plan_units(slots, {p: a for p, a in after.items() if a}, self._no_units)
        for neg in node.negations:
            names = required_names(neg)
            if names is None:
                gen.negations.append(neg)
                continue
            index = {s.name: i for i, s in enumerate(slots) if s.gen is not None}
            if any(n not in index for n in names):
                continue  # one of them is never generated: the group can never be complete
            group = [index[n] for n in names]
            if all(slots[i].required for i in group):
                _fail(node, f"'not' forbids {', '.join(names)} together, but every one of them is required")
            gen.not_all.append(group)
        return gen

    def _open_slots(self, node: Node, pos: str, depth: int, slots: list[ChildSlot]) -> int:
        """Optional slots with keys named after patternProperties / additionalProperties, added only
        as far as minProperties needs them; returns how many properties can now be present."""
        available = sum(1 for s in slots if s.gen is not None and s.name)
        need = (node.min_properties or 0) - available
        if need <= 0:
            return available
        taken = {s.name for s in slots}
        for name, value in extra_properties(node, need, taken):
            child = replace(value, name=name, path=_join(node.path, name), required=False)
            g = self.node(child, f"{pos}/{name}", depth)
            if g is not None:
                slots.append(ChildSlot(g, name, False))
                available += 1
        return available

    def array(self, node: Node, pos: str, depth: int, key: int, name: str) -> ArrayGen | ChoiceGen | None:
        if node.conditionals or node.contains is not None:
            # arrays drawn from the plain shape and from each `then`/`else` length window, kept only
            # when they meet the whole schema (`contains`, conditions): re-drawn otherwise
            variants = array_variants(node)
            options: list[Gen | None] = [
                self.array(v, f"{pos}?{i}", depth, hash_key(f"{pos}?{i}"), name)
                for i, v in enumerate(variants)
            ]
            if all(o is None for o in options):
                return None
            return ChoiceGen(
                node,
                key,
                name,
                options,
                self.tree.definitions,
                null_rate=self._null_rate(node, self.rules.get(node.path)),
                must_match=node,
            )
        lo = node.min_items or 0
        hi = node.max_items if node.max_items is not None else lo + ARRAY_SPREAD
        hi = min(hi, lo + 2 * ARRAY_SPREAD + 2) if node.max_items is None or hi - lo > 10 else hi
        hi = max(hi, lo)
        if node.max_items is not None and lo > node.max_items:
            raise Unsatisfiable(f"{node.path}: minItems {lo} is greater than maxItems {node.max_items}.")
        prefix: list[Gen] = []
        for i, p in enumerate(node.prefix_items):
            g = self.node(p, f"{pos}[{i}]", depth)
            if g is None:
                hi = min(hi, i)
                break
            prefix.append(g)
        item = self.node(node.items, f"{pos}[]", depth) if node.items is not None else None
        if node.items is None:
            hi = min(hi, len(prefix)) if prefix else hi
            if not prefix:
                item = AnyGen(Node(Kind.ANY, path=node.path), hash_key(pos + "[]"), "")
        if item is None and node.items is not None:
            hi = min(hi, len(prefix))
        if hi < lo:
            if node.items is not None and item is None:
                return None  # the items cannot terminate at this depth: the parent must avoid the array
            _fail(node, f"minItems {lo} cannot be met")
        rule = self.rules.get(node.path)
        return ArrayGen(node, key, name, item, lo, hi, prefix, node.unique_items, self._null_rate(node, rule))

    def choice(self, node: Node, pos: str, depth: int, key: int, name: str) -> ChoiceGen | None:
        narrowed = distinguished(node.options) if node.choice_mode == ChoiceMode.ONE_OF else node.options
        # a oneOf option standing twice (the model shares one node for the same schema) can never
        # be the only match: it is not drawn, though its values still count against the others
        twins = [
            node.choice_mode == ChoiceMode.ONE_OF and sum(o is x for x in node.options) > 1
            for o in node.options
        ]
        if any(twins):
            self.dead.append(
                f"{node.path or name}: {sum(twins)} oneOf options are the same schema, so no "
                f"value can match exactly one of them"
            )
        options = [
            None if twins[i] else self.node(o, f"{pos}|{i}", depth, o.name if node.name == "" else name)
            for i, o in enumerate(narrowed)
        ]
        if all(o is None for o in options):
            return None
        exclusive = node.choice_mode == ChoiceMode.ONE_OF and may_overlap(node.options, self.tree.definitions)
        return ChoiceGen(
            node,
            key,
            name,
            options,
            self.tree.definitions,
            exclusive,
            self._null_rate(node, self.rules.get(node.path)),
            group=(node.name == "" and name == ""),
        )

    def choice_leaf(self, node: Node, rule: Any, key: int, name: str) -> Gen | None:
        values: list[Any] | None
        if node.has_const:
            values = [node.const]
        elif node.xml is not None and node.xml.fixed is not None:
            values = [node.xml.fixed]
        else:
            values = list(node.enum) if node.enum is not None else None
            r_enum = _rule_get(rule, "enum")
            if r_enum is not None:
                values = [v for v in r_enum if values is None or v in values] or values
            assert values is not None
        if values and not self.xsd:
            # an enum merged with a sibling's pattern, length or bounds (allOf, or a choice option
            # laid over a base) keeps only the values that meet them all
            facets = replace(node, enum=None, has_const=False)
            values = [v for v in values if accepts(facets, v, self.tree.definitions)]
            if not values:
                self.dead.append(f"{node.path}: no enum/const value meets the field's other facets")
                return None
        if not values:
            # an anyOf/oneOf branch or an optional property is left out; a required one fails
            self.dead.append(f"{node.path or name}: the enum allows no value")
            return None
        ready = [_json_ready(v) for v in values]
        kinds = {type(v) for v in values}
        kind = _JSON_KIND.get(node.kind, "any")
        if kinds - {str} and kind == "string":
            kind = "any"
        if any(isinstance(v, (dict, list)) for v in values):
            kind = "any"
        spec = LeafSpec(
            node.path,
            node.name,
            node.kind,
            unique=bool(_rule_get(rule, "unique")),
            distribution=_rule_get(rule, "distribution"),
            edge_rate=float(_rule_get(rule, "edge_rate") or 0),
        )
        return LeafGen(
            node,
            key,
            name,
            spec,
            kind,
            choices=ready,
            choice_text=[_lexical(v) for v in values],
            null_rate=self._null_rate(node, rule),
        )

    def leaf_spec(self, node: Node, rule: Any) -> LeafSpec:
        kind = node.kind
        if kind == Kind.STRING and node.format in _DATE_FORMATS:
            kind = _DATE_FORMATS[node.format]
        patterns = [(p, node.pattern_anchored) for p in node.patterns]
        r_pattern = _rule_get(rule, "pattern")
        if r_pattern:
            patterns.insert(0, (r_pattern, True))  # a rule's pattern describes the whole value
        category = _rule_get(rule, "category") or self.semantics.category(node, kind)
        if category is not None and category in CATEGORIES and kind not in CATEGORIES[category].kinds:
            category = None
        row_number = (
            kind == Kind.INTEGER
            and node.name.lstrip("@").lower() == "id"
            and node.path.lstrip("@") == "id"
            and _rule_get(rule, "distribution") is None
        )
        unique, soft = default_uniqueness(rule, node.name, kind, category, node.format)
        return LeafSpec(
            path=node.path,
            name=node.name,
            kind=kind,
            xsd=self.xsd,
            minimum=_tighter(node.minimum, _rule_get(rule, "min"), pick_max=True),
            maximum=_tighter(node.maximum, _rule_get(rule, "max"), pick_max=False),
            exclusive_minimum=node.exclusive_minimum
            and (
                _rule_get(rule, "min") is None
                or _tighter(node.minimum, _rule_get(rule, "min"), True) == node.minimum
            ),
            exclusive_maximum=node.exclusive_maximum
            and (
                _rule_get(rule, "max") is None
                or _tighter(node.maximum, _rule_get(rule, "max"), False) == node.maximum
            ),
            multiple_of=node.multiple_of,
            total_digits=node.total_digits,
            fraction_digits=node.fraction_digits,
            min_length=_tighter(node.min_length, _rule_get(rule, "min_length"), pick_max=True),
            max_length=_tighter(node.max_length, _rule_get(rule, "max_length"), pick_max=False),
            patterns=patterns,
            format=node.format,
            category=category,
            unique=unique or row_number,
            row_number=row_number,
            distribution=_rule_get(rule, "distribution"),
            mean=_rule_get(rule, "mean"),
            sd=_rule_get(rule, "sd"),
            edge_rate=float(_rule_get(rule, "edge_rate") or 0),
            unique_soft=soft and not row_number,
        )

    def scalar(self, node: Node, rule: Any, key: int, name: str) -> LeafGen:
        made = self._scalars.get(node)
        if made is None:
            made = self._scalars[node] = self._values_gen(self.leaf_spec(node, rule))
        spec, values_gen = made
        rate = self._null_rate(node, rule)
        k = spec.kind
        if k == Kind.NULL:
            return LeafGen(node, key, name, spec, "null", always_null=True)
        if k == Kind.BOOLEAN:
            return LeafGen(node, key, name, spec, "boolean", boolean=True, null_rate=rate)
        kind = _JSON_KIND[k] if k in (Kind.INTEGER, Kind.NUMBER) else "string"
        return LeafGen(node, key, name, spec, kind, values_gen, null_rate=rate)

    @staticmethod
    def _values_gen(spec: LeafSpec) -> tuple[LeafSpec, Any]:
        """(spec, the generator of its values); raises Unsatisfiable when no value meets the facets
        (not memoised: the field is dead, and its message is recorded at each position)."""
        k = spec.kind
        if k in (Kind.NULL, Kind.BOOLEAN):
            return spec, None
        if k in (Kind.INTEGER, Kind.NUMBER):
            return spec, NumberGenerator(spec)
        if k in (Kind.DATE, Kind.DATETIME, Kind.TIME):
            return spec, TemporalGenerator(spec, k)
        return spec, StringGenerator(spec)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _fail(node: Node, why: str) -> NoReturn:
    raise Unsatisfiable(f"{node.path}: {why}.")
