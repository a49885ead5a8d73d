"""Turns the route table into HTTP routes. Each route: path/query/body -> variables
(app/rest/variables.py), run the stored operation through the same schema and context as /graphql,
map the result to HTTP."""

from __future__ import annotations

import logging
import re
from datetime import date
from typing import Any
from weakref import WeakKeyDictionary

import orjson
import strawberry
from fastapi import APIRouter, Request
from graphql import GraphQLError, parse, validate
from starlette.responses import Response

from app.core.authz import require_scope
from app.core.error_codes import ErrorCode
from app.core.errors import DomainError
from app.graphql.context import request_context
from app.rest.downloads import Endpoint, make_download_endpoint
from app.rest.errors import domain_error_response, error_response, method_not_allowed
from app.rest.route import Route, allowed_methods
from app.rest.variables import build_variables

log = logging.getLogger("tdg.rest")


def _status_of(error: GraphQLError) -> int:
    return int((error.extensions or {}).get("status", 400))


def _error_from_graphql(error: GraphQLError) -> Response:
    original = error.original_error
    if isinstance(original, DomainError):
        return domain_error_response(original)
    ext = error.extensions or {}
    if "status" not in ext:
        # not shaped by app/graphql/errors.py (e.g. the unit of work failing to commit): its message
        # is raw driver text with the SQL statement, so it is logged and never sent
        log.error("Unshaped error from a stored operation: %s", error.message, exc_info=original)
        return error_response(500, "Internal server error.")
    raw_code, field = str(ext.get("code")), ext.get("field")
    code = ErrorCode(raw_code) if raw_code in ErrorCode._value2member_map_ else ErrorCode.BAD_REQUEST
    return error_response(
        _status_of(error),
        error.message,
        code=code,
        field=field if isinstance(field, str) else None,
    )


def shadowed_literals(route: Route, routes: tuple[Route, ...]) -> dict[str, str]:
    """The literal paths of the table that `route`'s template also matches, each with its Allow
    value: GET /users/create reaches the row GET /users/{user_id}, but names the path /users/create,
    which serves only POST (a 405, not a user id that is not an integer)."""
    if route.literal:
        return {}
    pattern = re.compile(
        "/".join("[^/]+" if seg.startswith("{") else re.escape(seg) for seg in route.path.split("/"))
    )
    return {
        other.path: ", ".join(allowed_methods(routes, other.path))
        for other in routes
        if other.literal and pattern.fullmatch(other.path)
    }


def _shadowing_literal(route: Route, shadowed: dict[str, str], request: Request) -> Response | None:
    path = route.path
    for name in route.path_params:
        path = path.replace("{" + name + "}", request.path_params[name])
    allow = shadowed.get(path)
    if allow is None:
        return None
    return method_not_allowed(request.method, allow)


def make_endpoint(route: Route, shadowed: dict[str, str]) -> Endpoint:
    operation = route.operation
    assert operation is not None, route.path

    async def endpoint(request: Request) -> Response:
        refused = _shadowing_literal(route, shadowed, request) if shadowed else None
        if refused is not None:
            return refused
        async with request_context(request) as context:
            if route.auth:
                principal = context.principal  # 401 before any body parsing
                if route.action is not None and route.body is not None:
                    # a scoped API token's refusal comes before its body is read (an upload's too)
                    require_scope(principal, route.action)
            if route.body is not None or route.form is not None:
                # a body may arrive slowly: the connection the authentication took goes back to
                # the pool while it does (else a few slow clients would hold the whole pool)
                await context.session.commit()
            variables = await build_variables(route, request)
            schema: strawberry.Schema = request.app.state.schema
            result = await schema.execute(
                operation.document, variable_values=variables, context_value=context
            )
        if result.errors:
            return _error_from_graphql(result.errors[0])
        payload = (result.data or {})[operation.field]
        headers = None
        if route.paged:
            headers = {"X-Total-Count": str(payload["total"])}
            payload = payload["items"]
        return Response(
            orjson.dumps(payload, default=_default),
            status_code=route.status,
            media_type="application/json",
            headers=headers,
        )

    endpoint.__name__ = route.operation_id
    return endpoint


def _default(value: Any) -> Any:
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError


def starlette_path(route: Route) -> str:
    """Path parameters match any segment: app/rest/variables.py refuses one that is not an integer
    with a 422 and a sentence (a route converter would turn it into a bare 404)."""
    return route.path


# documents already validated against a schema (schemas are cached and shared by apps: see build_schema)
_VALIDATED: WeakKeyDictionary[Any, set[str]] = WeakKeyDictionary()


def build_router(routes: tuple[Route, ...], graphql_schema: Any) -> APIRouter:
    """Validate every stored operation against the schema, then register one route per row."""
    checked = _VALIDATED.setdefault(graphql_schema._schema, set())
    problems = []
    for route in routes:
        if route.operation is None or route.operation.document in checked:
            continue
        errors = validate(graphql_schema._schema, parse(route.operation.document))
        if errors:
            problems.append(f"{route.method} {route.path}: {errors[0].message}")
        else:
            checked.add(route.operation.document)
    if problems:
        raise RuntimeError("Stored REST operations do not match the GraphQL schema:\n" + "\n".join(problems))
    router = APIRouter()
    # literal paths first: /users/me is matched before the template /users/{user_id}
    for route in sorted(routes, key=lambda r: not r.literal):
        shadowed = shadowed_literals(route, routes)
        # (the download door's path shadows no literal path; it would need the same 405 first)
        assert not (route.download and shadowed), route.path
        endpoint = make_download_endpoint(route) if route.download else make_endpoint(route, shadowed)
        router.add_api_route(
            starlette_path(route),
            endpoint,
            methods=[route.method],
            include_in_schema=False,
            name=route.operation_id,
        )
    return router
