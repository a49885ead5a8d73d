"""JSON Schema (draft-04 .. 2020-12) -> field model.

Loading checks the document against its draft's metaschema and resolves every ``$ref`` inside
the document only (a ``referencing.Registry`` whose retrieval always refuses); building a
`FieldTree` merges ``allOf``, turns ``anyOf``/``oneOf``/type lists into CHOICE nodes, and cuts
recursion with REF nodes. ECMA-262 patterns are translated to Python ``re`` syntax here too.
"""

from __future__ import annotations

import functools
import json
import math
import re
import warnings
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import jsonschema
import jsonschema_rs
import orjson
import referencing
import referencing.exceptions
import referencing.jsonschema
from jsonschema_specifications import REGISTRY as METASCHEMA_REGISTRY

from app.core.errors import Invalid
from app.generation.guard import JsonSchemaRecordValidator, RecordValidator
from app.generation.model import ChoiceMode, Conditional, FieldTree, Kind, Node, required_names
from app.generation.schema.ecma_regex import translate_ecma_pattern

MAX_JSON_DEPTH = 128  # JSON nesting levels of the schema document
MAX_TREE_DEPTH = 64  # schema levels inlined before a $ref is cut into a REF node
MAX_NESTING = 100  # schema levels below which nothing is modelled (keeps clear of RecursionError)
NODE_BUDGET = 10_000  # past this many nodes every further $ref becomes a REF node
HARD_NODE_LIMIT = 100_000  # past this (choice combinations) subtrees are left unmodelled (ANY)
_EXPANDED_KEYWORDS = frozenset({"allOf", "$ref", "$dynamicRef", "$recursiveRef"})
UPLOAD_BASE_URI = "urn:tdg:upload"

_DRAFTS: dict[str, tuple[str, type[Any], referencing.Specification[Any]]] = {
    "json-schema.org/draft-04/schema": ("draft-04", jsonschema.Draft4Validator, referencing.jsonschema.DRAFT4),
    "json-schema.org/draft-06/schema": ("draft-06", jsonschema.Draft6Validator, referencing.jsonschema.DRAFT6),
    "json-schema.org/draft-07/schema": ("draft-07", jsonschema.Draft7Validator, referencing.jsonschema.DRAFT7),
    "json-schema.org/draft/2019-09/schema": (
        "2019-09", jsonschema.Draft201909Validator, referencing.jsonschema.DRAFT201909),
    "json-schema.org/draft/2020-12/schema": (
        "2020-12", jsonschema.Draft202012Validator, referencing.jsonschema.DRAFT202012),
}
_DEFAULT_DRAFT = "json-schema.org/draft/2020-12/schema"
_LEGACY_DRAFTS = {"draft-04", "draft-06", "draft-07"}

# keywords whose presence makes an object a JSON Schema rather than arbitrary JSON
_SCHEMA_KEYWORDS = frozenset({
    "$schema", "$ref", "$defs", "definitions", "type", "properties", "items", "prefixItems", "allOf",
    "anyOf", "oneOf", "enum", "const", "required", "additionalProperties", "patternProperties", "not",
    "if", "format", "pattern", "minimum", "maximum", "minLength", "maxLength", "$dynamicRef",
})
_OBJECT_KEYWORDS = ("properties", "required", "additionalProperties", "patternProperties", "minProperties",
                    "maxProperties", "dependentRequired", "dependencies", "propertyNames",
                    "unevaluatedProperties", "dependentSchemas")
_ARRAY_KEYWORDS = ("items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains", "additionalItems")
_STRING_KEYWORDS = ("minLength", "maxLength", "pattern", "format")
_NUMBER_KEYWORDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_UNSUPPORTED_KEYWORDS = {
    "unevaluatedItems": "'unevaluatedItems' is ignored",
}
_DATE_FORMATS = {"date": Kind.DATE, "date-time": Kind.DATETIME, "time": Kind.TIME}
_TYPE_KINDS = {
    "string": Kind.STRING, "integer": Kind.INTEGER, "number": Kind.NUMBER, "boolean": Kind.BOOLEAN,
    "object": Kind.OBJECT, "array": Kind.ARRAY, "null": Kind.NULL,
}


# ---------------------------------------------------------------------------------------------
# loading


class _RetrievalRefused(Exception):
    pass


def _refuse_retrieval(uri: str) -> referencing.Resource[Any]:
    # jsonschema would fetch remote $refs by default; an upload may only reference itself
    raise _RetrievalRefused(uri)


def _parse_json(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        if "recursion" in str(exc).lower():
            raise Invalid(f"The JSON document is nested deeper than {MAX_JSON_DEPTH} levels.") from None
        first_error = exc
    # orjson refuses a few valid documents (e.g. integers beyond 64 bits); the stdlib decides
    try:
        return json.loads(text)
    except RecursionError:
        raise Invalid(f"The JSON document is nested deeper than {MAX_JSON_DEPTH} levels.") from None
    except ValueError as exc:
        err = exc if isinstance(exc, json.JSONDecodeError) else first_error
        raise Invalid(
            f"The document is neither XML nor valid JSON (line {err.lineno}, column {err.colno})."
        ) from None


def _json_depth(doc: Any) -> int:
    deepest = 0
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > deepest:
            deepest = depth
            if deepest > MAX_JSON_DEPTH:
                return deepest
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values() if isinstance(v, dict | list))
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value if isinstance(v, dict | list))
    return deepest


def _draft_key(uri: str) -> str | None:
    key = uri.strip().split("://", 1)[-1].rstrip("#")
    return key if key in _DRAFTS else None


@dataclass
class JsonSchemaDocument:
    """A loaded, metaschema-checked JSON Schema whose references all resolve inside it."""

    contents: dict[str, Any]
    version: str
    validator_cls: type[Any]
    specification: referencing.Specification[Any]
    registry: referencing.Registry[Any]
    base_uri: str
    roots: list[str] = field(default_factory=list)
    default_root: str = "#"

    def canonical_root(self, root: str) -> str | None:
        if root in ("#", "", "/"):
            return "#"
        name = root.removeprefix("#").removeprefix("/")
        return name if name in self.roots else None

    def resolver(self) -> referencing._core.Resolver[Any]:
        return self.registry.resolver(base_uri=self.base_uri)

    def root_schema(self, root: str) -> tuple[Any, Any]:
        """(contents, resolver) of a record root."""
        if root == "#":
            return self.contents, self.resolver()
        resolved = self.resolver().lookup(f"#/{root}")
        return resolved.contents, resolved.resolver

    def field_tree(self, root: str) -> FieldTree:
        contents, resolver = self.root_schema(root)
        try:
            return _TreeBuilder(self).build(root, contents, resolver)
        except RecursionError:
            raise Invalid("The schema is nested too deeply to be modelled.") from None

    def record_validator(self, root: str) -> RecordValidator:
        schema: Any = self.contents if root == "#" else {"$ref": f"{self.base_uri}#/{root}"}
        # the draft's own checker: a bare FormatChecker() mixes drafts (its "time" is draft 3's,
        # which no RFC 3339 time from a draft-7+ schema can pass)
        validator = self.validator_cls(schema, registry=self.registry, format_checker=self.validator_cls.FORMAT_CHECKER)
        return JsonSchemaRecordValidator(validator)


def load_json_schema(text: str) -> JsonSchemaDocument:
    """Parse and check a JSON Schema document; Invalid when it is not one or references the outside."""
    doc = _parse_json(text)
    if not isinstance(doc, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(type(doc), "a number")
        raise Invalid(f"The JSON document is {kind}, not a JSON Schema object.")
    if _json_depth(doc) > MAX_JSON_DEPTH:
        raise Invalid(f"The JSON document is nested deeper than {MAX_JSON_DEPTH} levels.")
    if not _SCHEMA_KEYWORDS.intersection(doc):
        raise Invalid("The JSON document has no JSON Schema keywords ($schema, type, properties, ...).")
    declared = doc.get("$schema", None)
    if declared is None:
        key = _DEFAULT_DRAFT
    elif not isinstance(declared, str) or _draft_key(declared) is None:
        shown = declared[:100] if isinstance(declared, str) else type(declared).__name__
        raise Invalid(
            f"Unsupported $schema {shown!r}; supported: draft-04, draft-06, draft-07, 2019-09, 2020-12."
        )
    else:
        key = _draft_key(declared) or _DEFAULT_DRAFT
    version, validator_cls, specification = _DRAFTS[key]
    _check_metaschema(doc, version)

    resource = specification.create_resource(doc)
    own_id = resource.id()
    base_uri = own_id.rstrip("#") if own_id else UPLOAD_BASE_URI
    registry = referencing.Registry(retrieve=_refuse_retrieval).with_resource(base_uri, resource)
    registry = registry.combine(METASCHEMA_REGISTRY)
    document = JsonSchemaDocument(doc, version, validator_cls, specification, registry, base_uri)
    try:
        _check_references(document, resource)
    except ValueError:
        raise Invalid("The schema has an $id that is not a valid URI.") from None
    document.roots = ["#", *_definition_roots(doc)]
    return document


@functools.lru_cache(maxsize=8)
def _metaschema_validator(version: str) -> Any:
    validator_cls = next(cls for v, cls, _ in _DRAFTS.values() if v == version)
    # formats off: jsonschema-rs would judge `pattern` by ECMA rules, while the validator users
    # run compiles it with Python's re; _check_pattern_compiles applies that rule instead
    return jsonschema_rs.validator_for(validator_cls.META_SCHEMA, validate_formats=False)


def _check_metaschema(doc: dict[str, Any], version: str) -> None:
    """The draft's metaschema check, done by jsonschema-rs: jsonschema's own check_schema takes
    minutes on a 10 MB schema, which would make every upload a denial-of-service lever."""
    try:
        _metaschema_validator(version).validate(doc)
    except jsonschema_rs.ValidationError as exc:
        where = "/".join(str(p) for p in exc.instance_path) or "(document root)"
        keyword = next((str(p) for p in reversed(list(exc.schema_path)) if isinstance(p, str)), "schema")
        raise Invalid(
            f"The document is not a valid {version} JSON Schema: the value at '{where}' fails the "
            f"metaschema's '{keyword}' rule."
        ) from None
    except ValueError as exc:
        raise Invalid(f"The document cannot be checked as a {version} JSON Schema: {str(exc)[:200]}") from None


def _lookup(resolver: Any, ref: str) -> Any:
    try:
        return resolver.lookup(ref)
    except ValueError:  # urllib refuses a malformed $id or $ref (e.g. "http://[oops")
        raise Invalid(f"$ref {ref[:200]!r} (or an $id it depends on) is not a valid URI.") from None
    except referencing.exceptions.Unresolvable:
        if ref.startswith("#"):
            raise Invalid(f"$ref {ref[:200]!r} does not resolve inside the uploaded document.") from None
        raise Invalid(
            f"$ref {ref[:200]!r} points outside the uploaded document; only references inside it are resolved."
        ) from None


_VALUE_KEYWORDS = frozenset({"enum", "const", "examples", "default"})  # JSON values, not subschemas


def _check_references(document: JsonSchemaDocument, resource: referencing.Resource[Any]) -> None:
    """Resolve every reference now, so nothing is ever fetched or found missing later.

    A plain walk over the document (skipping literal values): referencing's own subresource walk
    is several times slower, which matters on a 10 MB upload.
    """
    id_keyword = "id" if document.version == "draft-04" else "$id"
    spec = document.specification
    stack: list[tuple[Any, Any]] = [(resource.contents, document.resolver())]
    while stack:
        value, resolver = stack.pop()
        if isinstance(value, dict):
            if isinstance(value.get(id_keyword), str) and value is not resource.contents:
                resolver = resolver.in_subresource(spec.create_resource(value))
            for keyword in ("$ref", "$dynamicRef", "$recursiveRef"):
                ref = value.get(keyword)
                if isinstance(ref, str):
                    _lookup(resolver, ref)
            pattern = value.get("pattern")
            if isinstance(pattern, str):
                _check_pattern_compiles(pattern)
            stack.extend((v, resolver) for k, v in value.items()
                         if isinstance(v, dict | list) and k not in _VALUE_KEYWORDS)
        else:
            stack.extend((v, resolver) for v in value if isinstance(v, dict | list))


@functools.lru_cache(maxsize=4096)
def _check_pattern_compiles(pattern: str) -> None:
    # jsonschema's validator runs `pattern` through Python's `re` as written: one that does not
    # compile there would crash validation of every record (jsonschema's check_schema refuses it too)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # "possible set difference" notes
            re.compile(pattern)
    except re.error:
        raise Invalid(f"The schema's pattern {pattern[:100]!r} is not a valid regular expression.") from None


def _escape_pointer(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _definition_roots(doc: dict[str, Any]) -> list[str]:
    roots: list[str] = []
    for container in ("$defs", "definitions"):
        defs = doc.get(container)
        if not isinstance(defs, dict):
            continue
        for name, sub in defs.items():
            if not isinstance(sub, dict):
                continue
            types = sub.get("type")
            is_object = types == "object" or (isinstance(types, list) and "object" in types)
            if is_object or "properties" in sub:
                roots.append(f"{container}/{_escape_pointer(name)}")
    return roots


# ---------------------------------------------------------------------------------------------
# building the field tree


def _dec(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return Decimal(repr(value))
    return Decimal(value)


def _decimal_lcm(a: Decimal, b: Decimal) -> Decimal:
    exp = -min(a.as_tuple().exponent, b.as_tuple().exponent, 0)  # type: ignore[operator]
    scale = Decimal(10) ** exp
    ia, ib = int(a * scale), int(b * scale)
    if ia <= 0 or ib <= 0:
        return a
    return Decimal(math.lcm(ia, ib)) / scale


def _fits(value: Any, kind: Kind) -> bool:
    if kind in (Kind.STRING, Kind.DATE, Kind.DATETIME, Kind.TIME):
        return isinstance(value, str)
    if kind is Kind.INTEGER:
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer())
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


def _value_kind(value: Any) -> str:
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


def _enum_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _intersect_types(a: set[str], b: set[str]) -> set[str]:
    out = a & b
    if "integer" in a and "number" in b:
        out.add("integer")
    if "integer" in b and "number" in a:
        out.add("integer")
    return out


def _note(node: Node, text: str) -> None:
    if text not in node.unsupported:
        node.unsupported.append(text)


def _matches_everything(node: Node) -> bool:
    return (node.kind is Kind.ANY and not node.negations and node.enum is None and not node.has_const
            and not node.unsupported)


def _required_only(node: Node) -> list[list[str]] | None:
    """A schema that is only `not: {required: [...]}` (one or more): the name lists, else None."""
    if node.kind not in (Kind.ANY, Kind.OBJECT) or node.children or not node.negations \
            or node.conditionals or node.enum is not None or node.has_const:
        return None
    out = [required_names(n) for n in node.negations]
    return None if any(o is None for o in out) else out  # type: ignore[return-value]


def _required_node(path: str, names: list[str]) -> Node:
    return Node(Kind.OBJECT, path=path, children=[Node(Kind.ANY, name=n, path=path) for n in names])


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


Part = tuple[Any, Any]  # (schema contents, resolver positioned at its base URI)


class _TreeBuilder:
    """Builds one FieldTree; per-build state tracks the $ref expansion stack and the node budget."""

    def __init__(self, document: JsonSchemaDocument) -> None:
        self.doc = document
        self.legacy = document.version in _LEGACY_DRAFTS
        self.draft4 = document.version == "draft-04"
        self.id_keyword = "id" if self.draft4 else "$id"
        self.node_count = 0
        self.definitions: dict[str, Node] = {}
        self.expanding: dict[int, str] = {}  # id(target contents) -> ref key, the current $ref stack
        self.scheduled: set[str] = set()  # keys some REF node points at
        self.shallow = False  # building definitions: every $ref is a REF
        self.pending: list[tuple[str, Any, Any, str]] = []  # cut refs still to build: key, contents, resolver, path
        self.key_of: dict[int, str] = {}
        self.keys_used: set[str] = set()

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
        key = ref[len(base):] if ref.startswith(base + "#") else ref
        if key in self.keys_used:
            key = f"{key}@{len(self.keys_used)}"
        self.key_of[ident] = key
        self.keys_used.add(key)
        return key

    def _ref_node(self, ref: str, resolver: Any, path: str, name: str, depth: int) -> Node:
        resolved = _lookup(resolver, ref)
        target, target_resolver = resolved.contents, resolved.resolver
        ident = id(target)
        key = self._ref_key(ref, ident)
        if ident in self.expanding or self.shallow or depth >= MAX_TREE_DEPTH or self.node_count > NODE_BUDGET:
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
                raise Invalid(f"The $id {schema[self.id_keyword][:100]!r} is not a valid URI.") from None
        return resolver

    def _identity(self, schema: Any, resolver: Any) -> int | None:
        """The id of the subschema a chain of pure `$ref`s ends at (None if it cannot be followed)."""
        for _ in range(32):
            ref = self._pure_ref(schema)
            if ref is None:
                return id(schema)
            try:
                resolved = _lookup(self._enter(schema, resolver), ref)
            except Invalid:
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
        structural = set(schema) - {"$ref", "$defs", "definitions", "$schema", "$id", "$comment", "title",
                                    "description", "$anchor", "examples", "default", "readOnly",
                                    "writeOnly", "deprecated"}
        return ref if not structural else None

    # -- flattening ------------------------------------------------------------------------------
    def _flatten(self, parts: list[Part], notes: list[str], inlined: dict[int, str]) -> tuple[list[Part], bool]:
        """Expand allOf and non-pure $refs into a flat conjunction of plain schemas.

        Every target inlined is recorded in `inlined`, which the caller keeps on the expansion
        stack while it converts the result, so a cycle through an inlined $ref is detected too.
        """
        flat: list[Part] = []
        impossible = False
        inlining: set[int] = set()

        def visit(schema: Any, resolver: Any) -> None:
            nonlocal impossible
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
                resolved = _lookup(resolver, r)
                ident = id(resolved.contents)
                if ident in inlining or ident in self.expanding:
                    notes.append(f"recursive $ref {r[:100]!r} inside allOf is not modelled")
                    continue
                inlining.add(ident)
                inlined.setdefault(ident, r)
                visit(resolved.contents, resolved.resolver)
                inlining.discard(ident)
            if isinstance(ref, str) and self.legacy:
                return
            members = schema.get("allOf")
            if isinstance(members, list):
                for member in members:
                    visit(member, resolver)
            if any(part is schema for part, _ in flat):
                return  # the same subschema twice (e.g. reached again through a $ref): once is enough
            expanded = _EXPANDED_KEYWORDS.intersection(schema)
            if expanded:
                # keep flattening idempotent: a part handed on must not expand its refs again
                schema = {k: v for k, v in schema.items() if k not in expanded}
            flat.append((schema, resolver))

        for schema, resolver in parts:
            visit(schema, resolver)
        return flat, impossible

    # -- conversion ------------------------------------------------------------------------------
    def _convert(self, parts: list[Part], path: str, name: str, depth: int) -> Node:
        self.node_count += 1
        if depth > MAX_NESTING or self.node_count > HARD_NODE_LIMIT:
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
        flat, impossible = self._flatten(parts, notes, inlined)
        fresh = [ident for ident in inlined if ident not in self.expanding]
        for ident in fresh:
            self.expanding[ident] = inlined[ident]
        try:
            return self._convert_flat(flat, impossible, notes, path, name, depth)
        finally:
            for ident in fresh:
                del self.expanding[ident]

    def _convert_flat(self, flat: list[Part], impossible: bool, notes: list[str], path: str, name: str,
                      depth: int) -> Node:
        if impossible:
            node = Node(Kind.ANY, name=name, path=path)
            node.unsupported.append("the schema is 'false' or contradictory: no value is valid")
            return node
        for index, (schema, resolver) in enumerate(flat):
            for keyword, mode in (("oneOf", ChoiceMode.ONE_OF), ("anyOf", ChoiceMode.ANY_OF)):
                options = schema.get(keyword)
                if isinstance(options, list) and options:
                    rest = {k: v for k, v in schema.items() if k != keyword}
                    base = [*flat[:index], (rest, resolver), *flat[index + 1:]]
                    node = self._choice(base, options, resolver, mode, path, name, depth)
                    node.unsupported[:0] = notes
                    return node
        node = self._combine(flat, path, name, depth)
        node.unsupported[:0] = notes
        return node

    def _choice(self, base: list[Part], options: list[Any], resolver: Any, mode: ChoiceMode, path: str,
                name: str, depth: int) -> Node:
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
        node = Node(Kind.CHOICE, name=name, path=path, options=converted, choice_mode=mode,
                    nullable=len(non_null) < len(options))
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
        has_const = False
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
            types = self._infer_types(flat, enum)
        nullable = nullable_flag or "null" in types or (enum is not None and None in enum)
        concrete = sorted(t for t in types if t != "null")
        if not concrete:
            if types:
                node = Node(Kind.NULL, name=name, path=path, nullable=True)
            else:
                node = Node(Kind.ANY, name=name, path=path)
                node.unsupported.append("the combined 'type' keywords leave no valid type: no value is valid")
            self._annotate(node, flat)
            return node
        if len(concrete) > 1:
            options = [self._typed(flat, t, path, "", depth, enum, const, has_const) for t in concrete]
            node = Node(Kind.CHOICE, name=name, path=path, options=options, choice_mode=ChoiceMode.UNION,
                        nullable=nullable)
            self._annotate(node, flat)
            return node
        node = self._typed(flat, concrete[0], path, name, depth, enum, const, has_const)
        node.nullable = nullable
        self._annotate(node, flat)
        return node

    def _infer_types(self, flat: list[Part], enum: list[Any] | None) -> set[str]:
        present = {k for schema, _ in flat for k in schema}
        if enum is not None:
            kinds = {_value_kind(v) for v in enum} - {"null"}
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

    def _typed(self, flat: list[Part], type_name: str, path: str, name: str, depth: int,
               enum: list[Any] | None, const: Any, has_const: bool) -> Node:
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
        if enum is not None:
            node.enum = [v for v in enum if v is not None and _fits(v, node.kind)]
        if has_const and _fits(const, node.kind):
            node.const, node.has_const = const, True
        for schema, resolver in flat:
            for keyword, reason in _UNSUPPORTED_KEYWORDS.items():
                if keyword in schema and reason not in node.unsupported:
                    node.unsupported.append(reason)
            if "not" in schema:
                node.negations.extend(self._negations(schema["not"], resolver, path, depth))
                _note(node, "'not' is honoured by re-drawing values that match it (formats are not "
                            "considered in that check)")
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
            if _dec(ex_min) is not None:
                lo = tighter_lo(lo, (_dec(ex_min), True))  # type: ignore[arg-type]
            if _dec(ex_max) is not None:
                hi = tighter_hi(hi, (_dec(ex_max), True))  # type: ignore[arg-type]
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
                node.additional = self._convert([(additional, resolver)], _join(node.path, "*"), "", depth + 1)
                _note(node, "an 'additionalProperties' schema: extra properties are generated only where "
                            "minProperties needs them")
            if isinstance(schema.get("unevaluatedProperties"), dict):
                node.unsupported.append("an 'unevaluatedProperties' schema is ignored")
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
        for index, (prop, contributions) in enumerate(properties.items()):
            if self.node_count > HARD_NODE_LIMIT:
                node.unsupported.append(f"{len(properties) - index} more properties are not modelled "
                                        f"(the tree exceeded {HARD_NODE_LIMIT} nodes)")
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
            child = self._convert(usable, child_path, prop, depth + 1)
            child.required = prop in required
            node.children.append(child)

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
                _note(node, "'patternProperties': pattern-named properties are generated only where "
                            "minProperties needs them")
        names = schema.get("propertyNames")
        if isinstance(names, dict) and node.property_names is None:
            node.property_names = self._convert([({"type": "string", **names}, resolver)],
                                                _join(node.path, "*"), "", depth + 1)
        for keyword in ("dependentSchemas", "dependencies"):
            deps = schema.get(keyword)
            if not isinstance(deps, dict):
                continue
            for prop, sub in deps.items():
                if isinstance(sub, list) or sub is True or sub == {}:
                    continue  # the list form is dependentRequired
                then = self._convert([(sub, resolver)], node.path, "", depth + 1)
                trigger = Node(Kind.OBJECT, path=node.path, children=[Node(Kind.ANY, name=prop, path=node.path)])
                pairs = _required_only(then)
                if pairs is not None:
                    # `prop` present => not all of these present: one negation over all of them
                    for names_ in pairs:
                        node.negations.append(_required_node(node.path, [prop, *names_]))
                else:
                    node.conditionals.append(Conditional(if_=trigger, then=then))

    def _conditional(self, schema: dict[str, Any], resolver: Any, path: str, depth: int) -> Conditional:
        def part(keyword: str) -> Node | None:
            sub = schema.get(keyword)
            if sub is None:
                return None
            return self._convert([(sub, resolver)], path, "", depth + 1)

        return Conditional(if_=part("if") or Node(Kind.ANY, path=path), then=part("then"), else_=part("else"))

    def _array(self, node: Node, flat: list[Part], depth: int) -> None:
        item_parts: list[Part] = []
        prefix_parts: list[list[Part]] = []
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
                    node.contains = self._convert([(contains, resolver)], node.path, "", depth + 1)
                    if not self.legacy:
                        for keyword, attr in (("minContains", "min_contains"), ("maxContains", "max_contains")):
                            v = schema.get(keyword)
                            if isinstance(v, int) and not isinstance(v, bool):
                                setattr(node, attr, v)
                else:
                    _note(node, "a second 'contains' is ignored")
        if node.contains is not None or node.conditionals:
            _note(node, "'contains' and if/then/else on an array are honoured by re-drawing arrays that miss them")
        node.prefix_items = [self._convert(p, node.path, "", depth + 1) for p in prefix_parts]
        if closed:
            node.max_items = len(prefix_parts) if node.max_items is None else min(node.max_items,
                                                                                  len(prefix_parts))
        elif item_parts:
            node.items = self._convert(item_parts, node.path, node.name, depth + 1)
        elif not prefix_parts:
            node.items = Node(Kind.ANY, name=node.name, path=node.path)


__all__ = ["JsonSchemaDocument", "load_json_schema"]
