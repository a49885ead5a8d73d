"""JSON Schema -> field tree: merges `allOf`, turns `anyOf`/`oneOf`/type lists into CHOICE nodes,
and cuts recursion with REF nodes; keyword facets are in json_keywords.py."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import referencing
import referencing.exceptions
import referencing.jsonschema

from app.generation.errors import GenerationError, SchemaError
from app.generation.model import ChoiceMode, FieldTree, Kind, Node
from app.generation.schema.json_keywords import (
    HARD_NODE_LIMIT,
    KeywordFacets,
    Part,
    note_unsupported,
)
from app.generation.schema.json_narrowing import (
    ALL_TYPES,
    DEAD,
    conditional_values,
    dead_reason,
    fits_kind,
    negated_types,
    value_kind,
    why_dead,
)

if TYPE_CHECKING:
    from app.generation.schema.json_schema import JsonSchemaDocument

MAX_TREE_DEPTH = 64  # schema levels inlined before a $ref is cut into a REF node
MAX_NESTING = 100  # schema levels below which nothing is modelled (keeps clear of RecursionError)
MAX_ALLOF_REENTRY = 2  # times a recursive $ref inside allOf is inlined again before it is cut
NODE_BUDGET = 10_000  # past this many nodes every further $ref becomes a REF node
_EXPANDED_KEYWORDS = frozenset({"allOf", "$ref", "$dynamicRef", "$recursiveRef"})
_LEGACY_DRAFTS = {"draft-04", "draft-06", "draft-07"}
_OBJECT_KEYWORDS = (
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependencies",
    "propertyNames",
    "unevaluatedProperties",
    "dependentSchemas",
)
_ARRAY_KEYWORDS = (
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "additionalItems",
)
_STRING_KEYWORDS = ("minLength", "maxLength", "pattern", "format")
_NUMBER_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_UNSUPPORTED_KEYWORDS: dict[str, str] = {}
_TYPE_KINDS = {
    "string": Kind.STRING,
    "integer": Kind.INTEGER,
    "number": Kind.NUMBER,
    "boolean": Kind.BOOLEAN,
    "object": Kind.OBJECT,
    "array": Kind.ARRAY,
    "null": Kind.NULL,
}


def lookup_ref(resolver: Any, ref: str) -> Any:
    try:
        return resolver.lookup(ref)
    except ValueError:  # urllib refuses a malformed $id or $ref (e.g. "http://[oops")
        raise SchemaError(f"$ref {ref[:200]!r} (or an $id it depends on) is not a valid URI.") from None
    except referencing.exceptions.Unresolvable:
        if ref.startswith("#"):
            raise SchemaError(f"$ref {ref[:200]!r} does not resolve inside the uploaded document.") from None
        raise SchemaError(
            f"$ref {ref[:200]!r} points outside the uploaded document; only references inside it are resolved."
        ) from None


def _enum_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _intersect_types(a: set[str], b: set[str]) -> set[str]:
    out = a & b
    if "integer" in a and "number" in b:
        out.add("integer")
    if "integer" in b and "number" in a:
        out.add("integer")
    return out


def _matches_everything(node: Node) -> bool:
    return (
        node.kind is Kind.ANY
        and not node.negations
        and node.enum is None
        and not node.has_const
        and not node.unsupported
    )


class TreeBuilder(KeywordFacets):
    """Builds one FieldTree; per-build state tracks the $ref expansion stack and the node budget."""

    def __init__(self, document: JsonSchemaDocument) -> None:
        self.doc = document
        self.legacy = document.version in _LEGACY_DRAFTS
        self.draft4 = document.version == "draft-04"
        self.id_keyword = "id" if self.draft4 else "$id"
        self.node_count = 0
        self.node_limit = HARD_NODE_LIMIT
        # a tree whose root object left properties unmodelled is built again with the nodes shared
        # out between each object's properties (JsonSchemaDocument.field_tree): Vega's `encode` used all 100,000
        self.share_nodes = False
        self.properties_cut = False
        self.definitions: dict[str, Node] = {}
        self.expanding: dict[int, str] = {}  # id(target contents) -> ref key, the current $ref stack
        self.scheduled: set[str] = set()  # keys some REF node points at
        self.shallow = False  # building definitions: every $ref is a REF
        self.pending: list[
            tuple[str, Any, Any, str]
        ] = []  # cut refs still to build: key, contents, resolver, path
        self.key_of: dict[int, str] = {}
        self.keys_used: set[str] = set()
        self.reentry: dict[int, int] = {}  # recursive allOf $ref target -> times inlined again

    # -- entry -----------------------------------------------------------------------------------
    def build(self, root: str, contents: Any, resolver: Any) -> FieldTree:
        key = "#" if root == "#" else f"#/{root}"
        self.key_of[id(contents)] = key
        self.keys_used.add(key)
        self.expanding[id(contents)] = key
        node = self._convert([(contents, resolver)], "", "", 0)
        del self.expanding[id(contents)]
        self._finish_definitions()
        if self.node_count > NODE_BUDGET:
            node.unsupported.append(
                f"the tree exceeded {NODE_BUDGET} nodes; further $refs were cut into REF nodes"
            )
        return FieldTree(root=node, root_name=root, definitions=self.definitions)

    def _finish_definitions(self) -> None:
        """Build every REF target once, shallowly: each $ref inside a definition is a REF again."""
        self.shallow = True
        while self.pending:
            key, contents, resolver, path = self.pending.pop()
            if key in self.definitions:
                continue
            self.expanding[id(contents)] = key
            self.definitions[key] = self._convert([(contents, resolver)], path, "", 0)
            del self.expanding[id(contents)]

    def _ref_key(self, ref: str, ident: int) -> str:
        """A readable, unique definitions key for the schema object `ident` first reached via `ref`."""
        key = self.key_of.get(ident)
        if key is not None:
            return key
        base = self.doc.base_uri
        key = ref[len(base) :] if ref.startswith(base + "#") else ref
        if key in self.keys_used:
            key = f"{key}@{len(self.keys_used)}"
        self.key_of[ident] = key
        self.keys_used.add(key)
        return key

    def _ref_node(self, ref: str, resolver: Any, path: str, name: str, depth: int) -> Node:
        resolved = lookup_ref(resolver, ref)
        target, target_resolver = resolved.contents, resolved.resolver
        ident = id(target)
        key = self._ref_key(ref, ident)
        if (
            ident in self.expanding
            or self.shallow
            or depth >= MAX_TREE_DEPTH
            or self.node_count > NODE_BUDGET
        ):
            if key not in self.scheduled:
                self.scheduled.add(key)
                self.pending.append((key, target, target_resolver, path))
            self.node_count += 1
            return Node(Kind.REF, name=name, path=path, ref=key)
        self.expanding[ident] = key
        try:
            return self._convert([(target, target_resolver)], path, name, depth + 1)
        finally:
            del self.expanding[ident]

    def _enter(self, schema: dict[str, Any], resolver: Any) -> Any:
        """The resolver for a subschema that declares its own base URI."""
        if isinstance(schema.get(self.id_keyword), str):
            try:
                return resolver.in_subresource(self.doc.specification.create_resource(schema))
            except ValueError:
                raise SchemaError(f"The $id {schema[self.id_keyword][:100]!r} is not a valid URI.") from None
        return resolver

    def _identity(self, schema: Any, resolver: Any) -> int | None:
        """The id of the subschema a chain of pure `$ref`s ends at (None if it cannot be followed)."""
        for _ in range(32):
            ref = self._pure_ref(schema)
            if ref is None:
                return id(schema)
            try:
                resolved = lookup_ref(self._enter(schema, resolver), ref)
            except GenerationError:
                return None
            schema, resolver = resolved.contents, resolved.resolver
        return None

    def _pure_ref(self, schema: Any) -> str | None:
        if not isinstance(schema, dict):
            return None
        ref = schema.get("$ref")
        if not isinstance(ref, str):
            dynamic = schema.get("$dynamicRef", schema.get("$recursiveRef"))
            if isinstance(dynamic, str) and len(schema) == 1:
                return dynamic  # resolved statically: the generator cannot follow dynamic scopes
            return None
        if self.legacy:
            return ref  # before 2019-09 the siblings of $ref are ignored
        structural = set(schema) - {
            "$ref",
            "$defs",
            "definitions",
            "$schema",
            "$id",
            "$comment",
            "title",
            "description",
            "$anchor",
            "examples",
            "default",
            "readOnly",
            "writeOnly",
            "deprecated",
        }
        return ref if not structural else None

    # -- flattening ------------------------------------------------------------------------------
    def _flatten(
        self, parts: list[Part], notes: list[str], inlined: dict[int, str], reentered: set[int]
    ) -> tuple[list[Part], bool, bool]:
        """Expand allOf and non-pure $refs into a flat conjunction of plain schemas; returns
        (parts, impossible, cut).

        Every target inlined is recorded in `inlined`, which the caller keeps on the expansion
        stack while it converts the result, so a cycle through an inlined $ref is detected too.
        A $ref back to a schema being expanded (a recursive `allOf: [{$ref: node}, ...]`) is
        inlined again up to MAX_ALLOF_REENTRY times (its idents go to `reentered`), then the
        subschema is cut: left unmodelled, so the compiler avoids it rather than drop the
        required properties the reference brings.
        """
        flat: list[Part] = []
        impossible = cut = False
        inlining: set[int] = set()

        def visit(schema: Any, resolver: Any) -> None:
            nonlocal impossible, cut
            if schema is True or schema == {}:
                return
            if schema is False:
                impossible = True
                return
            if not isinstance(schema, dict):
                return
            resolver = self._enter(schema, resolver)
            ref = schema.get("$ref")
            refs = [ref] if isinstance(ref, str) else []
            for dyn in ("$dynamicRef", "$recursiveRef"):
                if isinstance(schema.get(dyn), str):
                    refs.append(schema[dyn])
                    notes.append(f"'{dyn}' is resolved statically")
            for r in refs:
                resolved = lookup_ref(resolver, r)
                ident = id(resolved.contents)
                if ident in inlining:
                    notes.append(f"recursive $ref {r[:100]!r} inside allOf is not modelled")
                    continue
                if ident in self.expanding:
                    if self.reentry.get(ident, 0) >= MAX_ALLOF_REENTRY:
                        cut = True
                        continue
                    reentered.add(ident)
                inlining.add(ident)
                inlined.setdefault(ident, r)
                visit(resolved.contents, resolved.resolver)  # noqa: F821 (deleted after the last call)
                inlining.discard(ident)
            if isinstance(ref, str) and self.legacy:
                return
            members = schema.get("allOf")
            if isinstance(members, list):
                for member in members:
                    visit(member, resolver)  # noqa: F821 (deleted after the last call)
            if any(part is schema for part, _ in flat):
                return  # the same subschema twice (e.g. reached again through a $ref): once is enough
            expanded = _EXPANDED_KEYWORDS.intersection(schema)
            if expanded:
                # keep flattening idempotent: a part handed on must not expand its refs again
                schema = {k: v for k, v in schema.items() if k not in expanded}
            flat.append((schema, resolver))

        try:
            for schema, resolver in parts:
                visit(schema, resolver)
        finally:
            # `visit` holds itself through its closure cell: without this every call left a
            # cycle (the closure, `flat`'s schema copies and resolvers) that only the cyclic
            # collector frees, which `tdg generate` pauses while it compiles and then freezes
            # (Vega-Lite: 1.5 million objects, ~200 MB never freed)
            del visit
        return flat, impossible, cut

    # -- conversion ------------------------------------------------------------------------------
    def _convert(self, parts: list[Part], path: str, name: str, depth: int) -> Node:
        self.node_count += 1
        if depth > MAX_NESTING or self.node_count > self.node_limit:
            node = Node(Kind.ANY, name=name, path=path)
            node.unsupported.append("the tree is too deep or too large here: not modelled further")
            return node
        if len(parts) == 1:
            ref = self._pure_ref(parts[0][0])
            if ref is not None:
                schema, resolver = parts[0]
                node = self._ref_node(ref, self._enter(schema, resolver), path, name, depth)
                self._annotate(node, [(schema, resolver)])
                return node
        notes: list[str] = []
        inlined: dict[int, str] = {}
        reentered: set[int] = set()
        flat, impossible, cut = self._flatten(parts, notes, inlined, reentered)
        if cut and not impossible:
            node = Node(Kind.ANY, name=name, path=path)
            node.unsupported.append(
                f"recursion through allOf is inlined {MAX_ALLOF_REENTRY} levels deep: not modelled further"
            )
            return node
        fresh = [ident for ident in inlined if ident not in self.expanding]
        for ident in fresh:
            self.expanding[ident] = inlined[ident]
        for ident in reentered:
            self.reentry[ident] = self.reentry.get(ident, 0) + 1
        try:
            return self._convert_flat(flat, impossible, notes, path, name, depth)
        finally:
            for ident in fresh:
                del self.expanding[ident]
            for ident in reentered:
                self.reentry[ident] -= 1

    def _convert_flat(
        self, flat: list[Part], impossible: bool, notes: list[str], path: str, name: str, depth: int
    ) -> Node:
        if impossible:
            node = Node(Kind.ANY, name=name, path=path)
            node.unsupported.append("the schema is 'false' or contradictory: no value is valid")
            return node
        for index, (schema, resolver) in enumerate(flat):
            for keyword, mode in (("oneOf", ChoiceMode.ONE_OF), ("anyOf", ChoiceMode.ANY_OF)):
                options = schema.get(keyword)
                if isinstance(options, list) and options:
                    rest = {k: v for k, v in schema.items() if k != keyword}
                    base = [*flat[:index], (rest, resolver), *flat[index + 1 :]]
                    node = self._choice(base, options, resolver, mode, path, name, depth)
                    node.unsupported[:0] = notes
                    return node
        node = self._combine(flat, path, name, depth)
        node.unsupported[:0] = notes
        return node

    def _choice(
        self,
        base: list[Part],
        options: list[Any],
        resolver: Any,
        mode: ChoiceMode,
        path: str,
        name: str,
        depth: int,
    ) -> Node:
        def is_null(option: Any) -> bool:
            return isinstance(option, dict) and option.get("type") == "null" and len(option) == 1

        non_null = [o for o in options if not is_null(o)]
        if len(non_null) == 1 and len(non_null) < len(options):
            node = self._convert([*base, (non_null[0], resolver)], path, name, depth + 1)
            node.nullable = True
            return node
        converted: list[Node] = []
        seen: dict[int, Node] = {}
        for option in non_null:
            ident = self._identity(option, resolver) if mode is ChoiceMode.ONE_OF else None
            if ident is not None and ident in seen:
                # the same schema twice in a oneOf (`basic`/`detailed` both `$ref: outputUnit`): the
                # one node stands in both places, so the compiler sees that no value of it can
                # match exactly one option
                converted.append(seen[ident])
                continue
            node = self._convert([*base, (option, resolver)], path, "", depth + 1)
            if ident is not None:
                seen[ident] = node
            converted.append(node)
        node = Node(
            Kind.CHOICE,
            name=name,
            path=path,
            options=converted,
            choice_mode=mode,
            nullable=len(non_null) < len(options),
        )
        # an option no value can satisfy is never drawn (and never matches): say so, and only
        # when none is left is the choice itself unsatisfiable
        dead = [i for i, o in enumerate(converted) if dead_reason(o) is not None]
        for i in dead:
            note_unsupported(node, f"{mode.value} option {i + 1} is dropped: {why_dead(converted[i])}")
        if dead and len(dead) == len(converted) and not node.nullable:
            node.unsupported.append(f"no {mode.value} option can be satisfied: {DEAD}")
        self._annotate(node, base)
        return node

    def _annotate(self, node: Node, parts: list[Part]) -> None:
        for schema, _ in parts:
            if not isinstance(schema, dict):
                continue
            if node.description is None:
                text = schema.get("description") or schema.get("title")
                if isinstance(text, str):
                    node.description = text
            if node.default is None and "default" in schema:
                node.default = schema["default"]

    def _combine(self, flat: list[Part], path: str, name: str, depth: int) -> Node:
        types: set[str] | None = None
        nullable_flag = False
        enum: list[Any] | None = None
        const: Any = None
        has_const = inferred = False
        for schema, _ in flat:
            t = schema.get("type")
            if isinstance(t, str | list):
                tset = {t} if isinstance(t, str) else {x for x in t if isinstance(x, str)}
                if schema.get("nullable") is True:
                    tset.add("null")
                types = tset if types is None else _intersect_types(types, tset)
            elif schema.get("nullable") is True:
                nullable_flag = True
            if isinstance(schema.get("enum"), list):
                values = schema["enum"]
                if enum is None:
                    enum = list(values)
                else:
                    keys = {_enum_key(v) for v in values}
                    enum = [v for v in enum if _enum_key(v) in keys]
            if "const" in schema and not (self.draft4):
                if has_const and _enum_key(const) != _enum_key(schema["const"]):
                    enum = []
                const, has_const = schema["const"], True
        if has_const:
            enum = [v for v in (enum if enum is not None else [const]) if _enum_key(v) == _enum_key(const)]
        if types is None:
            types, enum, inferred = self._untyped(flat, enum)
        excluded = negated_types(flat)
        if excluded:  # `not: {type: ...}`: built as the remaining types, not re-drawn
            types = (set(ALL_TYPES) if "any" in types else types) - excluded
        if enum is not None:
            # values come from the enum alone: a type holds a value only if some member fits it,
            # and null only if the enum holds null (a `type: [string, null]` beside it does not)
            null_ok = None in enum and ("null" in types or nullable_flag or "any" in types)
            types = {
                t
                for t in types
                if t != "null"
                and any(v is not None and fits_kind(v, _TYPE_KINDS.get(t, Kind.ANY)) for v in enum)
            } | ({"null"} if null_ok else set())
            nullable = null_ok
        else:
            nullable = nullable_flag or "null" in types
        concrete = sorted(t for t in types if t != "null")
        if not concrete:
            if types:
                node = Node(Kind.NULL, name=name, path=path, nullable=True)
            else:
                # a typed node (NULL, not nullable), not ANY: the compiler names a dead typed node
                # when the path is required, and leaves it out where the schema allows
                node = Node(Kind.NULL, name=name, path=path)
                why = (
                    "no enum/const value has an allowed type"
                    if enum is not None
                    else "the combined 'type' keywords leave no valid type"
                )
                node.unsupported.append(f"{why}: {DEAD}")
            self._annotate(node, flat)
            return node
        if len(concrete) > 1:
            options = [self._typed(flat, t, path, "", depth, enum, const, has_const) for t in concrete]
            node = Node(
                Kind.CHOICE,
                name=name,
                path=path,
                options=options,
                choice_mode=ChoiceMode.UNION,
                nullable=nullable,
            )
            self._annotate(node, flat)
            return node
        node = self._typed(flat, concrete[0], path, name, depth, enum, const, has_const)
        node.nullable = nullable
        node.typed = not (inferred and not excluded)
        self._annotate(node, flat)
        return node

    def _untyped(self, flat: list[Part], enum: list[Any] | None) -> tuple[set[str], list[Any] | None, bool]:
        """A schema without `type`: its types, its values (if/then/else alone whose branches list
        values is drawn from them) and whether the kind was inferred from keywords, which then
        bind values of that type only (the node is not `typed`)."""
        if enum is None and self.doc.version not in ("draft-04", "draft-06"):
            enum = conditional_values(flat)
        return self._infer_types(flat, enum), enum, enum is None

    def _infer_types(self, flat: list[Part], enum: list[Any] | None) -> set[str]:
        present = {k for schema, _ in flat for k in schema}
        if enum is not None:
            kinds = {value_kind(v) for v in enum} - {"null"}
            if kinds == {"integer", "number"}:
                kinds = {"number"}
            return kinds | ({"null"} if None in enum else set()) if kinds else {"null"}
        if present.intersection(_OBJECT_KEYWORDS) or "if" in present:
            return {"object"}
        if present.intersection(_ARRAY_KEYWORDS):
            return {"array"}
        if present.intersection(_STRING_KEYWORDS):
            return {"string"}
        if present.intersection(_NUMBER_KEYWORDS):
            return {"number"}
        return {"any"}

    def _typed(
        self,
        flat: list[Part],
        type_name: str,
        path: str,
        name: str,
        depth: int,
        enum: list[Any] | None,
        const: Any,
        has_const: bool,
    ) -> Node:
        kind = _TYPE_KINDS.get(type_name, Kind.ANY)
        node = Node(kind, name=name, path=path)
        if kind is Kind.STRING:
            self._string_facets(node, flat)
        elif kind in (Kind.INTEGER, Kind.NUMBER):
            self._number_facets(node, flat)
        elif kind is Kind.OBJECT:
            self._object(node, flat, depth)
        elif kind is Kind.ARRAY:
            self._array(node, flat, depth)
        if kind not in (Kind.OBJECT, Kind.ARRAY):
            self._scalar_conditions(node, flat, depth)
        if enum is not None:
            node.enum = [v for v in enum if v is not None and fits_kind(v, node.kind)]
            if not node.enum:
                node.unsupported.append(f"no enum/const value is a valid {type_name}: {DEAD}")
        if has_const and fits_kind(const, node.kind):
            node.const, node.has_const = const, True
        for schema, resolver in flat:
            for keyword, reason in _UNSUPPORTED_KEYWORDS.items():
                if keyword in schema and reason not in node.unsupported:
                    node.unsupported.append(reason)
            if "not" in schema:
                node.negations.extend(self._negations(schema["not"], resolver, path, depth))
                note_unsupported(
                    node,
                    "'not' is honoured by re-drawing values that match it (formats are not "
                    "considered in that check)",
                )
        if any(_matches_everything(n) for n in node.negations):
            node.unsupported.append("the schema is 'not {}': no value is valid")
        return node

    def _negations(self, sub: Any, resolver: Any, path: str, depth: int) -> list[Node]:
        """`not: sub` as nodes no value may match; `not: {anyOf: [a, b]}` is `not a` and `not b`."""
        if sub is False:
            return []
        if isinstance(sub, dict):
            options = sub.get("anyOf")
            rest = set(sub) - {"anyOf", "description", "title", "$comment"}
            if isinstance(options, list) and options and not rest:
                return [n for o in options for n in self._negations(o, resolver, path, depth)]
        return [self._convert([(sub, resolver)], path, "", depth + 1)]
