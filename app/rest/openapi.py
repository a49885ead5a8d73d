"""The OpenAPI document, built from the route table: request bodies from the payload models,
response shapes from the stored operations' selection sets (so the document cannot drift from
what the facade returns)."""

from __future__ import annotations

from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLEnumType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    OperationDefinitionNode,
    parse,
)
from pydantic import BaseModel

from app.core.authz import MIN_PROJECT_ROLE, MIN_ROLE, TOKEN_ACTIONS, describe
from app.core.error_codes import ErrorCode
from app.core.models import Role
from app.core.payloads import NUL_FREE
from app.generation.output_formats import BY_NAME, OUTPUT_FORMATS
from app.generation.xml_documents import ZIP_MEDIA_TYPE
from app.rest.route import DATE_PATTERN, MAX_INT, Param, Route

_SCALARS = {
    "Int": {"type": "integer"},
    "Float": {"type": "number"},
    "String": {"type": "string"},
    "Boolean": {"type": "boolean"},
    "ID": {"type": "string"},
    "JSON": {},
}

# error status -> (the shared response's name under components/responses, what it means)
_ERRORS: dict[int, tuple[str, str]] = {
    400: ("BadRequest", "Malformed JSON or a missing required field"),
    401: ("Unauthenticated", "Token missing, invalid, expired or revoked"),
    403: ("Forbidden", "The caller's role, or their API token's scope, lacks the permission"),
    404: ("NotFound", "Not found, or not visible to the caller"),
    409: ("Conflict", "The resource's state does not allow this"),
    410: (
        "Gone",
        "The dataset's stored file is missing or damaged (the dataset is now expired, with the reason)",
    ),
    413: ("PayloadTooLarge", "Request body or upload too large"),
    415: ("UnsupportedMediaType", "Wrong Content-Type"),
    416: ("RangeNotSatisfiable", "Range not satisfiable (Content-Range names the file's size)"),
    422: (
        "Invalid",
        "A value is present but invalid: a path id that is not an integer, a query parameter empty, "
        "repeated or outside its schema, a body field outside its constraints",
    ),
    429: ("TooManyRequests", "Too many attempts; see Retry-After"),
    503: (
        "Unavailable",
        "Not now (see Retry-After): every database connection stayed in use (busy), the database "
        "cannot be reached, or the file store cannot be reached",
    ),
}
_ERROR_HEADERS: dict[int, dict[str, Any]] = {
    401: {"WWW-Authenticate": {"schema": {"type": "string"}, "description": "Bearer"}},
    416: {"Content-Range": {"schema": {"type": "string"}, "description": "bytes */size"}},
    429: {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait"}},
    503: {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait"}},
}


def _error_responses() -> dict[str, Any]:
    """components/responses: one shared response per error status, each an Error body."""
    out: dict[str, Any] = {}
    for status, (name, text) in _ERRORS.items():
        response: dict[str, Any] = {
            "description": text,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
        if status in _ERROR_HEADERS:
            response["headers"] = _ERROR_HEADERS[status]
        out[name] = response
    return out


def error_statuses(route: Route) -> list[int]:
    """Every error status the row can answer: those its shape implies at the door (app/rest/
    variables.py, body_limit.py) and those its service adds (the row's `errors`)."""
    statuses = set(route.errors)
    if route.auth:
        statuses |= {401, 403}  # no token, or a bad one; a scoped API token outside its scope
    if route.path_params:
        statuses |= {404, 422}  # an id out of range or not visible; one that is not an integer
    if route.query:
        statuses.add(422)  # empty, repeated, mistyped, out of range
    if route.body is not None or route.form is not None:
        statuses |= {400, 413, 415, 422}  # no or malformed body; too large; wrong type; invalid field
    if route.download:
        statuses |= {400, 416}  # a malformed or unsatisfiable Range header
        statuses |= {410, 503}  # the stored file missing or damaged; the store not answering
    if route.auth or route.operation is not None:
        statuses.add(503)  # no database connection free within the pool's timeout
    return sorted(statuses)


Fragments = dict[str, FragmentDefinitionNode]


def _fields(selections: Any, fragments: Fragments) -> list[FieldNode]:
    """The selected fields in order, fragment spreads expanded in place (as the engine does)."""
    out: list[FieldNode] = []
    for sel in selections:
        if isinstance(sel, FragmentSpreadNode):
            out += _fields(fragments[sel.name.value].selection_set.selections, fragments)
        elif isinstance(sel, FieldNode):
            out.append(sel)
    return out


def _type_schema(gtype: Any, field: FieldNode | None, fragments: Fragments) -> tuple[dict[str, Any], bool]:
    """JSON Schema of a GraphQL output type restricted to the selection; returns (schema, required)."""
    if isinstance(gtype, GraphQLNonNull):
        inner, _ = _type_schema(gtype.of_type, field, fragments)
        return inner, True
    if isinstance(gtype, GraphQLList):
        inner, _ = _type_schema(gtype.of_type, field, fragments)
        return {"type": "array", "items": inner}, False
    if isinstance(gtype, GraphQLEnumType):
        return {"type": "string", "enum": list(gtype.values)}, False
    if isinstance(gtype, GraphQLScalarType):
        return dict(_SCALARS.get(gtype.name, {})), False
    assert isinstance(gtype, GraphQLObjectType)
    props: dict[str, Any] = {}
    required: list[str] = []
    selections = field.selection_set.selections if field and field.selection_set else []
    for sel in _fields(selections, fragments):
        name = sel.name.value
        sub, req = _type_schema(gtype.fields[name].type, sel, fragments)
        if gtype.fields[name].description:
            sub["description"] = gtype.fields[name].description
        if not req:
            sub = {"anyOf": [sub, {"type": "null"}]} if sub else {}
        props[name] = sub
        if req:
            required.append(name)
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    return out, False


def response_schema(schema: GraphQLSchema, route: Route) -> dict[str, Any]:
    assert route.operation is not None
    doc = parse(route.operation.document)
    operation = next(d for d in doc.definitions if isinstance(d, OperationDefinitionNode))
    fragments = {d.name.value: d for d in doc.definitions if isinstance(d, FragmentDefinitionNode)}
    root = schema.mutation_type if operation.operation.value == "mutation" else schema.query_type
    assert root is not None
    field = next(
        s
        for s in _fields(operation.selection_set.selections, fragments)
        if s.name.value == route.operation.field
    )
    out, _ = _type_schema(root.fields[route.operation.field].type, field, fragments)
    if route.paged:
        items = out["properties"]["items"]
        assert isinstance(items, dict)
        return items
    return out


def who_may_call(route: Route) -> str:
    """The "who may call" sentence, derived from the row's authz action and app/core/authz.py's tables."""
    if not route.auth:
        return "Allowed for: anyone."
    if route.action is None:
        return "Allowed for: any authenticated user."
    role = MIN_ROLE[route.action]
    text = "SuperUser" if role is Role.SuperUser else f"{role.value} and up"
    project_role = MIN_PROJECT_ROLE.get(route.action)
    if project_role is not None:
        text += (
            f" with a project role of at least '{project_role.value}' (Admins own every project of their "
            "tenant, a Manager the projects they created)"
        )
    token_action = TOKEN_ACTIONS.get(route.action)
    scope = (
        f"; a scoped API token needs `{token_action.value}`" if token_action else "; not a scoped API token"
    )
    return f"Allowed for: {text}, to {describe(route.action)} (authz action `{route.action.value}`{scope})."


def _no_nul(schema: Any) -> None:
    """The door refuses U+0000 in every text it takes (app/rest/variables.py): a string without a
    pattern, enum or format of its own gets NUL_FREE, and so do a free-form object's keys. (Nested
    values of a free-form object are refused alike; JSON Schema would need recursion to say so.)"""
    if isinstance(schema, dict):
        if schema.get("type") == "string" and not {"pattern", "enum", "const", "format"} & schema.keys():
            schema["pattern"] = NUL_FREE
        if schema.get("type") == "object" and schema.get("additionalProperties") is True:
            schema["propertyNames"] = {"pattern": NUL_FREE}
        for value in schema.values():
            _no_nul(value)
    elif isinstance(schema, list):
        for value in schema:
            _no_nul(value)


def _model_schema(model: type[BaseModel], components: dict[str, Any]) -> dict[str, Any]:
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    _no_nul(schema)
    for name, definition in schema.pop("$defs", {}).items():
        components[name] = definition
    components[model.__name__] = schema
    return {"$ref": f"#/components/schemas/{model.__name__}"}


_FILLED_BY_UPLOAD = {"content", "content_base64", "filename"}


def _multipart_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The upload door's form: part `file` plus the body model's plain fields, each as the JSON
    body's field (without null: a form field is given with a value or left out)."""
    what = getattr(model, "upload_description", "The file to upload")
    props: dict[str, Any] = {"file": {"type": "string", "format": "binary", "description": what}}
    fields = model.model_json_schema()["properties"]
    for name, field in model.model_fields.items():
        if name in _FILLED_BY_UPLOAD:
            continue
        prop = dict(fields[name])
        variants = [v for v in prop.pop("anyOf", [prop]) if v.get("type") != "null"]
        props[name] = {**variants[0], "description": field.description or name}
    schema = {"type": "object", "required": ["file"], "properties": props}
    _no_nul(schema)
    return schema


def query_schema(param: Param) -> dict[str, Any]:
    """A query parameter's JSON schema: exactly what app/rest/variables.py accepts for it (given
    once and not empty; an integer in its range, `true`/`false`, a date, one of its choices)."""
    schema: dict[str, Any]
    if param.type == "int":
        schema = {"type": "integer", "minimum": param.minimum, "maximum": param.maximum}
    elif param.type == "bool":
        schema = {"type": "boolean"}
    elif param.type == "date":
        schema = {
            "type": "string",
            "pattern": DATE_PATTERN,
            "anyOf": [{"format": "date"}, {"format": "date-time"}],
        }
    elif param.choices:
        schema = {"type": "string", "enum": list(param.choices)}
    else:
        schema = {"type": "string", "minLength": 1, "pattern": NUL_FREE}
    if param.default is not None:
        schema["default"] = param.default
    return schema


def _parameters(route: Route) -> list[dict[str, Any]]:
    path = [
        {
            "name": n,
            "in": "path",
            "required": True,
            "description": f"An integer; one outside 1-{MAX_INT} names no resource (404)",
            "schema": {"type": "integer", "minimum": 1, "maximum": MAX_INT},
        }
        for n in route.path_params
    ]
    query = [
        {
            "name": p.name,
            "in": "query",
            "required": False,
            "description": p.description,
            "schema": query_schema(p),
        }
        for p in route.query
    ]
    return path + query


def _request_body(route: Route, components: dict[str, Any]) -> dict[str, Any] | None:
    if route.form is not None:
        form = {"schema": _model_schema(route.form, components)}
        return {"required": True, "content": {"application/x-www-form-urlencoded": form}}
    if route.body is None:
        return None
    content: dict[str, Any] = {"application/json": {"schema": _model_schema(route.body, components)}}
    if route.multipart:
        content["multipart/form-data"] = {"schema": _multipart_schema(route.body)}
    return {"required": True, "content": content}


# what a downloaded file is, per format: JSON is an array of records, the others are text
_FILE_SCHEMAS: dict[str, dict[str, Any]] = {
    f.name: {"type": "array", "items": {}, "description": f.content}
    if f.name == "json"
    else {"type": "string", "description": f.content}
    for f in OUTPUT_FORMATS
}
_DOWNLOAD_HEADERS = {
    "X-Content-SHA256": {"schema": {"type": "string"}, "description": "The whole file's SHA-256 (hex)"},
    "Content-Disposition": {"schema": {"type": "string"}, "description": "attachment; filename=..."},
    "Accept-Ranges": {"schema": {"type": "string"}, "description": "bytes"},
}


def _download_responses() -> dict[str, Any]:
    """The download door's answers: the file in its format's media type (the `format` parameter
    chooses it), whole or a Range of it."""
    media = {fmt: BY_NAME[fmt].bare_media_type for fmt in _FILE_SCHEMAS}
    content = {media[fmt]: {"schema": schema} for fmt, schema in _FILE_SCHEMAS.items()}
    choice = ", ".join(f"format={fmt}: {media[fmt]}" for fmt in _FILE_SCHEMAS)
    # params.xml_layout documents: the XML file is a zip, an XML document per record
    content[ZIP_MEDIA_TYPE] = {"schema": {"type": "string", "format": "binary"}}
    choice += f"; format=xml of a dataset with params.xml_layout documents: {ZIP_MEDIA_TYPE}, a document per record"
    return {
        "200": {
            "description": f"The file, streamed ({choice}); supports Range requests",
            "headers": _DOWNLOAD_HEADERS,
            "content": content,
        },
        "206": {
            "description": "Part of the file (a Range request): one range in the format's media type, "
            "several as multipart/byteranges",
            "headers": {
                **_DOWNLOAD_HEADERS,
                "Content-Range": {"schema": {"type": "string"}, "description": "bytes first-last/size"},
            },
            "content": {
                **{m: {"schema": {"type": "string"}} for m in content},
                "multipart/byteranges": {"schema": {"type": "string"}},
            },
        },
    }


def _responses(route: Route, schema: GraphQLSchema) -> dict[str, Any]:
    responses: dict[str, Any] = _download_responses() if route.download else {}
    if route.operation is not None:
        success: dict[str, Any] = {
            "description": "Success",
            "content": {"application/json": {"schema": response_schema(schema, route)}},
        }
        if route.paged:
            success["headers"] = {
                "X-Total-Count": {"schema": {"type": "integer"}, "description": "Total matching rows"}
            }
        responses[str(route.status)] = success
    for status in error_statuses(route):
        responses[str(status)] = {"$ref": f"#/components/responses/{_ERRORS[status][0]}"}
    return responses


def _operation(route: Route, schema: GraphQLSchema, components: dict[str, Any]) -> dict[str, Any]:
    op: dict[str, Any] = {
        "operationId": route.operation_id,
        "summary": route.summary,
        "tags": [route.tag],
        "description": who_may_call(route),
        "parameters": _parameters(route),
        "responses": _responses(route, schema),
        "security": [{"bearer": []}] if route.auth else [],
    }
    body = _request_body(route, components)
    if body is not None:
        op["requestBody"] = body
    return op


def build_openapi(routes: tuple[Route, ...], schema: GraphQLSchema, *, version: str) -> dict[str, Any]:
    components: dict[str, Any] = {
        "Error": {
            "type": "object",
            "required": ["detail", "code"],
            "properties": {
                "detail": {"type": "string", "description": "One human-readable sentence"},
                "code": {
                    "type": "string",
                    "enum": [code.value for code in ErrorCode],
                    "description": "What went wrong, for a program to branch on: stable, where the "
                    "sentence may be reworded (GraphQL: extensions.code)",
                },
                "field": {
                    "type": "string",
                    "description": "The input the error is about, as a path into the request body "
                    "or the query parameter's name: record_count, params.seed, rules.2.pattern "
                    "(GraphQL: extensions.field). Absent when the error is not about one input.",
                },
                "errors": {
                    "type": "array",
                    "items": {"type": "object"},
                    "description": "Every failing field of a body that did not validate: field, message, type",
                },
            },
        },
    }
    paths: dict[str, dict[str, Any]] = {}
    for route in routes:
        op = _operation(route, schema, components)
        paths.setdefault(route.path, {})[route.method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Test Data Generation Service",
            "version": version,
            "description": "REST facade over the GraphQL API at /graphql. Every error body is "
            '{"detail": "...", "code": "..."}, with "field" when it is about one input. Lists take limit (1-500, default 50) and offset and '
            "return the total in X-Total-Count. A query parameter is given at most once and never "
            "empty. A method a path does not serve answers 405 with an Allow header listing the "
            "methods it does.",
        },
        "servers": [{"url": "/api/v1"}],
        "paths": paths,
        "components": {
            "schemas": components,
            "responses": _error_responses(),
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "JWT from /users/token or an API token (tdg_...)",
                }
            },
        },
    }
