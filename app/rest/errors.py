"""The one place that maps errors to HTTP: `{"detail": "<sentence>", "code": "<ErrorCode>"}` on
every error, with `"field": "<input path>"` when the error is about one input, and at the /graphql
door a GraphQL response of one error with `extensions.code` (and `extensions.field`): a GraphQL
client reads `errors`, nothing else."""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import DBAPIError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from app.core.database import unreachable
from app.core.error_codes import ErrorCode
from app.core.errors import Busy, DatabaseUnavailable, DomainError, Unauthenticated
from app.core.validation import from_pydantic
from app.graphql.errors import GRAPHQL_PATH, transport_error
from app.rest.route import allowed_methods
from app.rest.routes import ROUTES

log = logging.getLogger("tdg.rest")


# the code of an error raised outside the domain (Starlette's own, by status)
_STATUS_CODES = {
    400: ErrorCode.BAD_REQUEST,
    401: ErrorCode.UNAUTHENTICATED,
    403: ErrorCode.FORBIDDEN,
    404: ErrorCode.PATH_NOT_FOUND,
    405: ErrorCode.METHOD_NOT_ALLOWED,
    413: ErrorCode.PAYLOAD_TOO_LARGE,
    415: ErrorCode.UNSUPPORTED_MEDIA_TYPE,
    422: ErrorCode.INVALID,
    429: ErrorCode.TOO_MANY_REQUESTS,
    503: ErrorCode.BUSY,
}


def error_response(
    status: int,
    detail: str,
    *,
    code: ErrorCode | None = None,
    field: str | None = None,
    errors: Any = None,
    headers: dict[str, str] | None = None,
    graphql: bool = False,
) -> Response:
    body: dict[str, Any]
    code = code or _STATUS_CODES.get(status, ErrorCode.INTERNAL)
    if graphql:
        retry_after = (headers or {}).get("Retry-After")
        body = transport_error(
            detail,
            code,
            status,
            field=field,
            errors=errors,
            retry_after=int(retry_after) if retry_after is not None else None,
        )
    else:
        body = {"detail": detail, "code": code}
        if field:
            body["field"] = field
        if errors:
            body["errors"] = errors
    return Response(orjson.dumps(body), status_code=status, media_type="application/json", headers=headers)


def at_graphql(request: Request) -> bool:
    """Whether the request came to the /graphql door (its errors are GraphQL responses)."""
    return request.url.path.rstrip("/") == GRAPHQL_PATH


def method_not_allowed(method: str, allow: str) -> Response:
    """405 with the Allow header listing every method of the path (RFC 9110 §15.5.6)."""
    return error_response(
        405,
        f"Method {method[:20]} is not allowed on this path; it serves {allow}.",
        code=ErrorCode.METHOD_NOT_ALLOWED,
        headers={"Allow": allow},
    )


@cache
def _allow_by_route_name() -> dict[str, str]:
    """Route name (a row's operation id, as app/rest/facade.py registers it) -> the Allow value of
    the row's path: every method of the path, where Starlette names only the row it matched."""
    return {r.operation_id: ", ".join(allowed_methods(ROUTES, r.path)) for r in ROUTES}


def domain_error_response(exc: DomainError, *, graphql: bool = False) -> Response:
    headers: dict[str, str] = {}
    if exc.retry_after is not None:
        headers["Retry-After"] = str(exc.retry_after)
    if isinstance(exc, Unauthenticated):
        headers["WWW-Authenticate"] = "Bearer"
    return error_response(
        exc.status,
        exc.detail,
        code=exc.code,
        field=exc.field,
        errors=exc.errors,
        headers=headers or None,
        graphql=graphql,
    )


def install(app: FastAPI) -> None:
    @app.exception_handler(DomainError)
    async def _domain(request: Request, exc: DomainError) -> Response:
        return domain_error_response(exc, graphql=at_graphql(request))

    @app.exception_handler(PoolTimeout)
    async def _busy(request: Request, exc: PoolTimeout) -> Response:
        # no connection for the request's session (its authentication, before any operation ran)
        return domain_error_response(Busy(), graphql=at_graphql(request))

    @app.exception_handler(DBAPIError)
    async def _database(request: Request, exc: DBAPIError) -> Response:
        if unreachable(exc):
            # refused, terminated or reset (or SQLite's file gone): not now, rather than broken
            log.warning("the database cannot be reached: %s", exc.orig)
            return domain_error_response(DatabaseUnavailable(), graphql=at_graphql(request))
        log.error("Unhandled database error", exc_info=exc)
        return error_response(500, "Internal server error.", graphql=at_graphql(request))

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> Response:
        # only the hand-written upload/download doors use FastAPI's own parsing
        errors = exc.errors()
        missing = next((e for e in errors if e.get("type") == "missing"), None)
        if missing:
            loc = ".".join(str(p) for p in missing.get("loc", ())[1:]) or "body"
            return error_response(
                400, f"Missing required field '{loc}'.", code=ErrorCode.REQUIRED, field=loc
            )
        first = errors[0] if errors else {}
        loc = ".".join(str(p) for p in first.get("loc", ())[1:]) or "request"
        return error_response(
            422,
            f"Invalid value for '{loc}': {first.get('msg', 'invalid')}.",
            code=ErrorCode.INVALID_VALUE,
            field=loc,
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 405:
            name = getattr(request.scope.get("route"), "name", None)
            allow = _allow_by_route_name().get(name or "") or (exc.headers or {}).get("Allow", "")
            if at_graphql(request):
                return error_response(
                    405,
                    f"Method {request.method[:20]} is not allowed on this path; it serves GET, POST.",
                    code=ErrorCode.METHOD_NOT_ALLOWED,
                    headers={"Allow": "GET, POST"},
                    graphql=True,
                )
            return method_not_allowed(request.method, allow)
        # typed str, but fastapi.HTTPException (a subclass, also handled here) carries any JSON value
        raw: object = exc.detail
        detail = raw if isinstance(raw, str) else "Request failed."
        if exc.status_code == 404 and detail == "Not Found":
            detail = "No such path."
        return error_response(
            exc.status_code, detail, headers=getattr(exc, "headers", None), graphql=at_graphql(request)
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        log.exception("Unhandled error", exc_info=exc)
        return error_response(500, "Internal server error.", graphql=at_graphql(request))


__all__ = ["domain_error_response", "error_response", "from_pydantic", "install", "method_not_allowed"]
