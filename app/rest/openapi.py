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

from app.core.authz import MIN_PROJECT_ROLE, MIN_ROLE, describe
from app.core.models import Role
from app.rest.route import Route

_SCALARS = {
    "Int": {"type": "integer"},
    "Float": {"type": "number"},
    "String": {"type": "string"},
    "Boolean": {"type": "boolean"},
    "ID": {"type": "string"},
    "JSON": {},
}

_ERROR_TEXT = {
    400: "Malformed JSON or a missing required field",
    401: "Token missing, invalid, expired or revoked",
    403: "The caller's role lacks the permission",
    404: "Not found, or not visible to the caller",
    409: "The resource's state does not allow this",
    413: "Upload too large",
    415: "Wrong Content-Type",
    422: "A value is present but invalid",
    429: "Too many attempts; see Retry-After",
}


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
    return f"Allowed for: {text}, to {describe(route.action)} (authz action `{route.action.value}`)."


def _model_schema(model: type[BaseModel], components: dict[str, Any]) -> dict[str, Any]:
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    for name, definition in schema.pop("$defs", {}).items():
        components[name] = definition
    components[model.__name__] = schema
    return {"$ref": f"#/components/schemas/{model.__name__}"}


_FILLED_BY_UPLOAD = {"content", "content_base64", "filename"}


def _multipart_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The upload door's form: part `file` plus the body model's plain fields."""
    props: dict[str, Any] = {
        "file": {"type": "string", "format": "binary", "description": "The file to upload"}
    }
    for name, field in model.model_fields.items():
        if name not in _FILLED_BY_UPLOAD:
            props[name] = {"type": "string", "description": field.description or name}
    return {"type": "object", "required": ["file"], "properties": props}


# a query parameter's JSON schema by its Param.type (any other type is a string)
_QUERY_SCHEMAS: dict[str, dict[str, Any]] = {
    "int": {"type": "integer"},
    "bool": {"type": "boolean"},
    "role": {"type": "string", "enum": ["Tester", "Manager", "Admin", "SuperUser"]},
    "date": {"type": "string", "format": "date"},
}


def _parameters(route: Route) -> list[dict[str, Any]]:
    path = [
        {"name": n, "in": "path", "required": True, "schema": {"type": "integer", "minimum": 1}}
        for n in route.path_params
    ]
    query = [
        {
            "name": p.name,
            "in": "query",
            "required": False,
            "description": p.description,
            "schema": _QUERY_SCHEMAS.get(p.type, {"type": "string"})
            | ({"default": p.default} if p.default is not None else {}),
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


def _responses(route: Route, schema: GraphQLSchema) -> dict[str, Any]:
    responses: dict[str, Any] = {}
    if route.download:
        responses["200"] = {
            "description": "The file, streamed; supports Range requests; X-Content-SHA256 carries its checksum",
            "content": {
                m: {"schema": {"type": "string", "format": "binary"}}
                for m in (
                    "text/csv",
                    "application/json",
                    "application/xml",
                    "application/sql",
                    "application/x-ndjson",
                )
            },
        }
        responses["206"] = {"description": "Partial content (Range request)"}
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
    statuses = set(route.errors) | ({401} if route.auth else set())
    for status in sorted(statuses):
        responses[str(status)] = {
            "description": _ERROR_TEXT.get(status, "Error"),
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
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
            "required": ["detail"],
            "properties": {
                "detail": {"type": "string", "description": "One human-readable sentence"},
                "code": {"type": "string"},
                "errors": {"type": "array", "items": {"type": "object"}},
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
            '{"detail": "..."}. Lists take limit (1-500, default 50) and offset and '
            "return the total in X-Total-Count.",
        },
        "servers": [{"url": "/api/v1"}],
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "JWT from /users/token or an API token (tdg_...)",
                }
            },
        },
    }
