"""JSON Schema (draft-04 .. 2020-12) documents: parsed, checked against their draft's metaschema, every
$ref resolved inside the document; json_tree.py builds the field tree. Design notes: docs/generation.md."""

from __future__ import annotations

import functools
import json
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import jsonschema_rs
import orjson
import referencing
import referencing.exceptions
import referencing.jsonschema
from jsonschema_specifications import REGISTRY as METASCHEMA_REGISTRY

from app.generation.caching import short_key_cache
from app.generation.errors import SchemaError
from app.generation.guard import JsonSchemaRecordValidator, RecordValidator
from app.generation.model import FieldTree
from app.generation.schema.json_tree import TreeBuilder, lookup_ref

MAX_JSON_DEPTH = 128  # JSON nesting levels of the schema document
UPLOAD_BASE_URI = "urn:tdg:upload"

_DRAFTS: dict[str, tuple[str, type[Any], referencing.Specification[Any]]] = {
    "json-schema.org/draft-04/schema": (
        "draft-04",
        jsonschema.Draft4Validator,
        referencing.jsonschema.DRAFT4,
    ),
    "json-schema.org/draft-06/schema": (
        "draft-06",
        jsonschema.Draft6Validator,
        referencing.jsonschema.DRAFT6,
    ),
    "json-schema.org/draft-07/schema": (
        "draft-07",
        jsonschema.Draft7Validator,
        referencing.jsonschema.DRAFT7,
    ),
    "json-schema.org/draft/2019-09/schema": (
        "2019-09",
        jsonschema.Draft201909Validator,
        referencing.jsonschema.DRAFT201909,
    ),
    "json-schema.org/draft/2020-12/schema": (
        "2020-12",
        jsonschema.Draft202012Validator,
        referencing.jsonschema.DRAFT202012,
    ),
}
_DEFAULT_DRAFT = "json-schema.org/draft/2020-12/schema"

# keywords whose presence makes an object a JSON Schema rather than arbitrary JSON
_SCHEMA_KEYWORDS = frozenset(
    {
        "$schema",
        "$ref",
        "$defs",
        "definitions",
        "type",
        "properties",
        "items",
        "prefixItems",
        "allOf",
        "anyOf",
        "oneOf",
        "enum",
        "const",
        "required",
        "additionalProperties",
        "patternProperties",
        "not",
        "if",
        "format",
        "pattern",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "$dynamicRef",
    }
)


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
            raise SchemaError(f"The JSON document is nested deeper than {MAX_JSON_DEPTH} levels.") from None
        if "surrogate" in str(exc):
            raise _lone_surrogate(f"line {exc.lineno}, column {exc.colno}") from None
        first_error = exc
    # orjson refuses a few valid documents (e.g. integers beyond 64 bits); the stdlib decides
    try:
        doc = json.loads(text)
        if "\\u" in text:  # the stdlib lets a lone surrogate escape through; orjson stopped earlier
            where = _surrogate_pointer(doc)
            if where is not None:
                raise _lone_surrogate(f"at {where or '/'}")
        return doc
    except RecursionError:
        raise SchemaError(f"The JSON document is nested deeper than {MAX_JSON_DEPTH} levels.") from None
    except ValueError as exc:
        err = exc if isinstance(exc, json.JSONDecodeError) else first_error
        raise SchemaError(
            f"The document is neither XML nor valid JSON (line {err.lineno}, column {err.colno})."
        ) from None


def _lone_surrogate(where: str) -> SchemaError:
    # a string holding half a UTF-16 pair cannot be written as UTF-8 (every output, the database)
    return SchemaError(
        f"The JSON document holds a lone UTF-16 surrogate escape such as \\ud800 ({where}); a character "
        "beyond U+FFFF is written as a pair of escapes or as UTF-8."
    )


def _has_surrogate(text: str) -> bool:
    return not text.isascii() and any("\ud800" <= ch <= "\udfff" for ch in text)


def _surrogate_pointer(doc: Any) -> str | None:
    """The JSON pointer of the first key or string holding a lone surrogate, None when none does."""
    stack: list[tuple[Any, str]] = [(doc, "")]
    while stack:
        value, pointer = stack.pop()
        if isinstance(value, str):
            if _has_surrogate(value):
                return pointer
        elif isinstance(value, dict):
            for key, item in value.items():
                step = f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}"
                if _has_surrogate(key):
                    return step.encode("utf-8", "backslashreplace").decode("ascii")
                stack.append((item, step))
        elif isinstance(value, list):
            stack.extend((item, f"{pointer}/{i}") for i, item in enumerate(value))
    return None


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
            tree, builder = _built(TreeBuilder(self), root, contents, resolver)
            if not builder.properties_cut:
                return tree
            # the node limit left some of the record's own properties unmodelled (the first
            # ones' subtrees took every node: Vega 4 and 5's records were `{"encode": {}}`): built
            # again with each object's remaining nodes shared equally between its properties, so
            # the record keeps its outline and loses depth instead. Only then: sharing at a
            # nested cut too starved azure-pipelines' `strategy.matrix` below its minProperties
            shared = TreeBuilder(self)
            shared.share_nodes = True
            return _built(shared, root, contents, resolver)[0]
        except RecursionError:
            raise SchemaError("The schema is nested too deeply to be modelled.") from None

    def record_validator(self, root: str) -> RecordValidator:
        schema: Any = self.contents if root == "#" else {"$ref": f"{self.base_uri}#/{root}"}
        # the draft's own checker: a bare FormatChecker() mixes drafts (its "time" is draft 3's,
        # which no RFC 3339 time from a draft-7+ schema can pass)
        validator = self.validator_cls(
            schema, registry=self.registry, format_checker=self.validator_cls.FORMAT_CHECKER
        )
        return JsonSchemaRecordValidator(validator)


def _built(builder: TreeBuilder, root: str, contents: Any, resolver: Any) -> tuple[FieldTree, TreeBuilder]:
    return builder.build(root, contents, resolver), builder


def load_json_schema(text: str) -> JsonSchemaDocument:
    """Parse and check a JSON Schema document; SchemaError when it is not one or references the outside."""
    doc = _parse_json(text)
    if not isinstance(doc, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
            type(doc), "a number"
        )
        raise SchemaError(f"The JSON document is {kind}, not a JSON Schema object.")
    if _json_depth(doc) > MAX_JSON_DEPTH:
        raise SchemaError(f"The JSON document is nested deeper than {MAX_JSON_DEPTH} levels.")
    if not _SCHEMA_KEYWORDS.intersection(doc):
        raise SchemaError("The JSON document has no JSON Schema keywords ($schema, type, properties, ...).")
    declared = doc.get("$schema", None)
    if declared is None:
        key = _DEFAULT_DRAFT
    elif not isinstance(declared, str) or _draft_key(declared) is None:
        shown = declared[:100] if isinstance(declared, str) else type(declared).__name__
        raise SchemaError(
            f"Unsupported $schema {shown!r}; supported: draft-04, draft-06, draft-07, 2019-09, 2020-12."
        )
    else:
        key = _draft_key(declared) or _DEFAULT_DRAFT
    version, validator_cls, specification = _DRAFTS[key]
    _check_metaschema(doc, version)

    resource = specification.create_resource(doc)
    own_id = resource.id()
    base_uri = own_id.rstrip("#") if own_id else UPLOAD_BASE_URI
    # `retrieve` is Registry's documented parameter, but referencing declares its attrs fields with a
    # dataclass_transform spelling mypy does not read: to mypy the class takes no arguments
    refusing = referencing.Registry(retrieve=_refuse_retrieval)  # type: ignore[call-arg]  # mypy sees no attrs fields
    registry = refusing.with_resource(base_uri, resource)
    registry = registry.combine(METASCHEMA_REGISTRY)
    if _has_embedded_ids(doc, "id" if version == "draft-04" else "$id"):
        # a $ref to an embedded $id is found only in a crawled registry; left uncrawled, every such
        # lookup crawls the whole document again and drops the result (asyncapi-3.1.0: 131 lookups
        # of ~2,000 resources each, over 60 s before a record was drawn)
        try:
            registry = registry.crawl()
        except ValueError:  # urljoin of a malformed $id ("http://[x")
            raise SchemaError("The schema has an $id that is not a valid URI.") from None
    document = JsonSchemaDocument(doc, version, validator_cls, specification, registry, base_uri)
    try:
        _check_references(document, resource)
    except ValueError:
        raise SchemaError("The schema has an $id that is not a valid URI.") from None
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
        raise SchemaError(
            f"The document is not a valid {version} JSON Schema: the value at '{where}' fails the "
            f"metaschema's '{keyword}' rule."
        ) from None
    except ValueError as exc:
        raise SchemaError(
            f"The document cannot be checked as a {version} JSON Schema: {str(exc)[:200]}"
        ) from None


_VALUE_KEYWORDS = frozenset({"enum", "const", "examples", "default"})  # JSON values, not subschemas


def _has_embedded_ids(doc: dict[str, Any], id_keyword: str) -> bool:
    """Whether a subschema below the root declares its own id (skipping literal values)."""
    stack: list[Any] = [v for k, v in doc.items() if isinstance(v, dict | list) and k not in _VALUE_KEYWORDS]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if isinstance(value.get(id_keyword), str):
                return True
            stack.extend(v for k, v in value.items() if isinstance(v, dict | list) and k not in _VALUE_KEYWORDS)
        else:
            stack.extend(v for v in value if isinstance(v, dict | list))
    return False


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
                    lookup_ref(resolver, ref)
            pattern = value.get("pattern")
            if isinstance(pattern, str):
                _check_pattern_compiles(pattern)
            stack.extend(
                (v, resolver)
                for k, v in value.items()
                if isinstance(v, dict | list) and k not in _VALUE_KEYWORDS
            )
        else:
            stack.extend((v, resolver) for v in value if isinstance(v, dict | list))


@short_key_cache(maxsize=4096)
def _check_pattern_compiles(pattern: str) -> None:
    # jsonschema's validator runs `pattern` through Python's `re` as written: one that does not
    # compile there would crash validation of every record (jsonschema's check_schema refuses it too)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # "possible set difference" notes
            re.compile(pattern)
    except (re.error, RecursionError):  # `re` parses groups recursively: ~500 nested ones are too deep
        raise SchemaError(
            f"The schema's pattern {pattern[:100]!r} is not a valid regular expression."
        ) from None


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


__all__ = ["JsonSchemaDocument", "load_json_schema"]
