"""JSON Schema keywords -> facets of one node: strings, numbers, objects and arrays (a mix-in
of the tree builder, which supplies `_convert`, `doc`, `legacy` and `node_count`)."""

from __future__ import annotations

import math
from dataclasses import replace
from decimal import Decimal
from typing import Any

from app.generation.model import Conditional, Kind, Node, required_names
from app.generation.schema.ecma_regex import translate_ecma_pattern
from app.generation.schema.json_narrowing import dead_reason, property_gates, property_name_gates, why_dead

HARD_NODE_LIMIT = 100_000  # past this (choice combinations) subtrees are left unmodelled (ANY)
_DATE_FORMATS = {"date": Kind.DATE, "date-time": Kind.DATETIME, "time": Kind.TIME}


def _dec(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return Decimal(repr(value))
    return Decimal(value)


def _decimal_lcm(a: Decimal, b: Decimal) -> Decimal:
    ea, eb = a.as_tuple().exponent, b.as_tuple().exponent
    assert isinstance(ea, int) and isinstance(eb, int)  # finite: _dec keeps no NaN or infinity
    exp = -min(ea, eb, 0)
    scale = Decimal(10) ** exp
    ia, ib = int(a * scale), int(b * scale)
    if ia <= 0 or ib <= 0:
        return a
    return Decimal(math.lcm(ia, ib)) / scale


def note_unsupported(node: Node, text: str) -> None:
    if text not in node.unsupported:
        node.unsupported.append(text)


def _required_only(node: Node) -> list[list[str]] | None:
    """A schema that is only `not: {required: [...]}` (one or more): the name lists, else None."""
    if (
        node.kind not in (Kind.ANY, Kind.OBJECT)
        or node.children
        or not node.negations
        or node.conditionals
        or node.enum is not None
        or node.has_const
    ):
        return None
    out = [required_names(n) for n in node.negations]
    lists = [o for o in out if o is not None]
    return lists if len(lists) == len(out) else None


def _required_node(path: str, names: list[str]) -> Node:
    return Node(Kind.OBJECT, path=path, children=[Node(Kind.ANY, name=n, path=path) for n in names])


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


Part = tuple[Any, Any]  # (schema contents, resolver positioned at its base URI)


class KeywordFacets:
    """The keyword -> facet half of the tree builder."""

    doc: Any
    legacy: bool
    node_count: int
    node_limit: int  # past it, subtrees are left unmodelled (HARD_NODE_LIMIT, or a property's share)
    share_nodes: bool
    properties_cut: bool  # the root object left properties unmodelled

    def _convert(self, parts: list[Part], path: str, name: str, depth: int) -> Node:
        raise NotImplementedError

    def _string_facets(self, node: Node, flat: list[Part]) -> None:
        for schema, _ in flat:
            v = schema.get("minLength")
            if isinstance(v, int) and not isinstance(v, bool):
                node.min_length = v if node.min_length is None else max(node.min_length, v)
            v = schema.get("maxLength")
            if isinstance(v, int) and not isinstance(v, bool):
                node.max_length = v if node.max_length is None else min(node.max_length, v)
            pattern = schema.get("pattern")
            if isinstance(pattern, str):
                try:
                    translated = translate_ecma_pattern(pattern)
                except ValueError as exc:
                    node.unsupported.append(f"pattern {pattern[:100]!r} cannot be honoured: {exc}")
                else:
                    if translated not in node.patterns:
                        node.patterns.append(translated)
            fmt = schema.get("format")
            if isinstance(fmt, str):
                if node.format is None:
                    node.format = fmt
                elif node.format != fmt:
                    node.unsupported.append(f"format {fmt!r} ignored: it conflicts with {node.format!r}")
        if node.format in _DATE_FORMATS:
            node.kind = _DATE_FORMATS[node.format]

    def _number_facets(self, node: Node, flat: list[Part]) -> None:
        lo: tuple[Decimal, bool] | None = None
        hi: tuple[Decimal, bool] | None = None

        def tighter_lo(cur: tuple[Decimal, bool] | None, new: tuple[Decimal, bool]) -> tuple[Decimal, bool]:
            if cur is None or new[0] > cur[0] or (new[0] == cur[0] and new[1]):
                return new
            return cur

        def tighter_hi(cur: tuple[Decimal, bool] | None, new: tuple[Decimal, bool]) -> tuple[Decimal, bool]:
            if cur is None or new[0] < cur[0] or (new[0] == cur[0] and new[1]):
                return new
            return cur

        for schema, _ in flat:
            minimum, maximum = _dec(schema.get("minimum")), _dec(schema.get("maximum"))
            ex_min, ex_max = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
            if minimum is not None:
                lo = tighter_lo(lo, (minimum, ex_min is True))
            if maximum is not None:
                hi = tighter_hi(hi, (maximum, ex_max is True))
            ex_lo, ex_hi = _dec(ex_min), _dec(ex_max)
            if ex_lo is not None:
                lo = tighter_lo(lo, (ex_lo, True))
            if ex_hi is not None:
                hi = tighter_hi(hi, (ex_hi, True))
            step = _dec(schema.get("multipleOf"))
            if step is not None and step > 0:
                node.multiple_of = step if node.multiple_of is None else _decimal_lcm(node.multiple_of, step)
            fmt = schema.get("format")
            if isinstance(fmt, str) and node.format is None:
                node.format = fmt
        if node.kind is Kind.INTEGER:
            if lo is not None:
                node.minimum = math.floor(lo[0]) + 1 if lo[1] else math.ceil(lo[0])
            if hi is not None:
                node.maximum = math.ceil(hi[0]) - 1 if hi[1] else math.floor(hi[0])
        else:
            if lo is not None:
                node.minimum, node.exclusive_minimum = lo
            if hi is not None:
                node.maximum, node.exclusive_maximum = hi

    def _object(self, node: Node, flat: list[Part], depth: int) -> None:
        properties: dict[str, list[Part]] = {}
        required: list[str] = []
        for schema, resolver in flat:
            props = schema.get("properties")
            if isinstance(props, dict):
                for prop, sub in props.items():
                    properties.setdefault(prop, []).append((sub, resolver))
            req = schema.get("required")
            if isinstance(req, list):
                required.extend(r for r in req if isinstance(r, str) and r not in required)
            additional = schema.get("additionalProperties")
            if additional is False or schema.get("unevaluatedProperties") is False:
                node.additional_properties = False
            elif isinstance(additional, dict) and additional and node.additional is None:
                node.additional = self._convert(
                    [(additional, resolver)], _join(node.path, "*"), "", depth + 1
                )
                note_unsupported(
                    node,
                    "an 'additionalProperties' schema: extra properties are generated only where "
                    "minProperties needs them",
                )
            unevaluated = schema.get("unevaluatedProperties")
            if isinstance(unevaluated, dict) and unevaluated and node.additional is None:
                # keys no other keyword evaluates: only the extra keys minProperties asks for
                node.additional = self._convert(
                    [(unevaluated, resolver)], _join(node.path, "*"), "", depth + 1
                )
            self._open_properties(node, schema, resolver, depth)
            for keyword in ("dependentRequired", "dependencies"):
                deps = schema.get(keyword)
                if isinstance(deps, dict):
                    for prop, needed in deps.items():
                        if isinstance(needed, list):
                            merged = node.dependent_required.setdefault(prop, [])
                            merged.extend(x for x in needed if isinstance(x, str) and x not in merged)
            for keyword, attr in (("minProperties", "min_properties"), ("maxProperties", "max_properties")):
                v = schema.get(keyword)
                if isinstance(v, int) and not isinstance(v, bool):
                    cur = getattr(node, attr)
                    pick = max if keyword == "minProperties" else min
                    setattr(node, attr, v if cur is None else pick(cur, v))
            if "if" in schema and self.doc.version not in ("draft-04", "draft-06"):
                node.conditionals.append(self._conditional(schema, resolver, node.path, depth))
        for prop in required:
            if prop not in properties:
                properties[prop] = [(True, None)]
        left_out, forbidden = property_gates(flat, properties, required)
        names_out, names_forbidden = property_name_gates(flat, properties, required, self.doc.validator_cls)
        left_out += names_out
        forbidden += names_forbidden
        for text in [*left_out, *forbidden[:1]]:
            note_unsupported(node, text)
        for index, (prop, contributions) in enumerate(properties.items()):
            if self.node_count > self.node_limit:
                self.properties_cut = self.properties_cut or not node.path  # the record's own
                node.unsupported.append(
                    f"{len(properties) - index} more properties are not modelled "
                    f"(the tree exceeded {HARD_NODE_LIMIT} nodes)"
                )
                # a required property left out would make every value invalid: keep it as an
                # unmodelled placeholder, so the compiler avoids this object instead
                for rest in list(properties)[index:]:
                    if rest in required:
                        cut = Node(Kind.ANY, name=rest, path=_join(node.path, rest))
                        cut.unsupported.append("the tree is too deep or too large here: not modelled further")
                        node.children.append(cut)
                break
            child_path = _join(node.path, prop)
            usable = [(s, r if r is not None else flat[0][1]) for s, r in contributions]
            child = self._property(usable, child_path, prop, depth + 1, len(properties) - index)
            child.required = prop in required
            node.children.append(child)
            if not child.required and dead_reason(child) is not None:
                # the compiler leaves it out; say why where the object is reported
                note_unsupported(node, f"optional property {prop!r} is left out: {why_dead(child)}")

    def _property(self, parts: list[Part], path: str, name: str, depth: int, left: int) -> Node:
        """A property's node; with `share_nodes`, within an equal share of the nodes left for the
        `left` properties still to convert (this one included)."""
        outer = self.node_limit
        if self.share_nodes:
            self.node_limit = self.node_count + (outer - self.node_count) // left
        try:
            return self._convert(parts, path, name, depth)
        finally:
            self.node_limit = outer

    def _open_properties(self, node: Node, schema: dict[str, Any], resolver: Any, depth: int) -> None:
        """patternProperties, propertyNames and dependentSchemas (or schema-valued dependencies)."""
        patterns = schema.get("patternProperties")
        if isinstance(patterns, dict):
            for pattern, sub in patterns.items():
                try:
                    translated = translate_ecma_pattern(pattern)
                except ValueError as exc:
                    node.unsupported.append(f"patternProperties {pattern[:100]!r} cannot be honoured: {exc}")
                    continue
                value = self._convert([(sub, resolver)], _join(node.path, "*"), "", depth + 1)
                node.pattern_properties.append((translated, value))
                note_unsupported(
                    node,
                    "'patternProperties': pattern-named properties are generated only where "
                    "minProperties needs them",
                )
        names = schema.get("propertyNames")
        if isinstance(names, dict) and node.property_names is None:
            node.property_names = self._convert(
                [({"type": "string", **names}, resolver)], _join(node.path, "*"), "", depth + 1
            )
        for keyword in ("dependentSchemas", "dependencies"):
            deps = schema.get(keyword)
            if not isinstance(deps, dict):
                continue
            for prop, sub in deps.items():
                if isinstance(sub, list) or sub is True or sub == {}:
                    continue  # the list form is dependentRequired
                then = self._convert([(sub, resolver)], node.path, "", depth + 1)
                trigger = Node(
                    Kind.OBJECT, path=node.path, children=[Node(Kind.ANY, name=prop, path=node.path)]
                )
                pairs = _required_only(then)
                if pairs is not None:
                    # `prop` present => not all of these present: one negation over all of them
                    for names_ in pairs:
                        node.negations.append(_required_node(node.path, [prop, *names_]))
                else:
                    node.conditionals.append(Conditional(if_=trigger, then=then, trigger=prop))

    def _conditional(self, schema: dict[str, Any], resolver: Any, path: str, depth: int) -> Conditional:
        def part(keyword: str) -> Node | None:
            sub = schema.get(keyword)
            if sub is None:
                return None
            return self._convert([(sub, resolver)], path, "", depth + 1)

        return Conditional(if_=part("if") or Node(Kind.ANY, path=path), then=part("then"), else_=part("else"))

    def _scalar_conditions(self, node: Node, flat: list[Part], depth: int) -> None:
        """if/then/else on a scalar as two negations: not (if and not then), not (neither if nor
        else); enum values are filtered by them, other values re-drawn."""
        if self.doc.version in ("draft-04", "draft-06"):
            return
        for schema, resolver in flat:
            if "if" not in schema or ("then" not in schema and "else" not in schema):
                continue
            cond = self._conditional(schema, resolver, node.path, depth)
            if cond.then is not None:
                node.negations.append(replace(cond.if_, negations=[*cond.if_.negations, cond.then]))
            if cond.else_ is not None:
                node.negations.append(Node(Kind.ANY, path=node.path, negations=[cond.if_, cond.else_]))
            note_unsupported(node, "if/then/else on a value is honoured by re-drawing values that break it")

    def _array(self, node: Node, flat: list[Part], depth: int) -> None:
        item_parts: list[Part] = []
        prefix_parts: list[list[Part]] = []
        contains_part: Part | None = None
        closed = False
        for schema, resolver in flat:
            prefix = schema.get("prefixItems") if not self.legacy and self.doc.version != "2019-09" else None
            items = schema.get("items")
            rest = schema.get("additionalItems") if self.legacy or self.doc.version == "2019-09" else None
            if isinstance(items, list):
                prefix, items, rest = items, rest, None
            if isinstance(prefix, list):
                for index, sub in enumerate(prefix):
                    if index >= len(prefix_parts):
                        prefix_parts.append([])
                    prefix_parts[index].append((sub, resolver))
            if items is False:
                closed = True
            elif isinstance(items, dict | bool):
                item_parts.append((items, resolver))
            for keyword, attr in (("minItems", "min_items"), ("maxItems", "max_items")):
                v = schema.get(keyword)
                if isinstance(v, int) and not isinstance(v, bool):
                    cur = getattr(node, attr)
                    pick = max if keyword == "minItems" else min
                    setattr(node, attr, v if cur is None else pick(cur, v))
            if schema.get("uniqueItems") is True:
                node.unique_items = True
            if "if" in schema and self.doc.version not in ("draft-04", "draft-06"):
                node.conditionals.append(self._conditional(schema, resolver, node.path, depth))
            contains = schema.get("contains")
            if isinstance(contains, dict | bool) and self.doc.version != "draft-04":
                if node.contains is None:
                    contains_part = (contains, resolver)
                    node.contains = self._convert([contains_part], node.path, "", depth + 1)
                    if not self.legacy:
                        for keyword, attr in (
                            ("minContains", "min_contains"),
                            ("maxContains", "max_contains"),
                        ):
                            v = schema.get(keyword)
                            if isinstance(v, int) and not isinstance(v, bool):
                                setattr(node, attr, v)
                else:
                    note_unsupported(node, "a second 'contains' is ignored")
        if node.contains is not None or node.conditionals:
            note_unsupported(
                node,
                "'contains' and if/then/else on an array are honoured by re-drawing arrays that miss them",
            )
        if node.contains is not None and contains_part is not None and item_parts and not prefix_parts:
            # every item meets `items`, so counting items that meet `contains` is counting items
            # that meet both: the conjunction is a value the generator can place on purpose
            node.contains = self._convert([*item_parts, contains_part], node.path, "", depth + 1)
        node.prefix_items = [self._convert(p, node.path, "", depth + 1) for p in prefix_parts]
        if prefix_parts and not item_parts and not closed:
            # items past the prefix: unevaluatedItems decides them (false closes the array); else
            # they are open, and drawn (unconstrained) only where minItems needs them
            unevaluated = [(s.get("unevaluatedItems"), r) for s, r in flat if "unevaluatedItems" in s]
            if any(u is False for u, _ in unevaluated):
                closed = True
            elif any(isinstance(u, dict) for u, _ in unevaluated):
                item_parts = [(u, r) for u, r in unevaluated if isinstance(u, dict)]
            elif (node.min_items or 0) > len(prefix_parts):
                node.items = Node(Kind.ANY, name=node.name, path=node.path)
        if closed:
            node.max_items = (
                len(prefix_parts) if node.max_items is None else min(node.max_items, len(prefix_parts))
            )
        elif item_parts:
            node.items = self._convert(item_parts, node.path, node.name, depth + 1)
        elif not prefix_parts:
            node.items = Node(Kind.ANY, name=node.name, path=node.path)
