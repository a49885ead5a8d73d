"""The one place that maps errors to HTTP: `{"detail": "<sentence>"}` on every error."""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from app.core.errors import Busy, DomainError, TooManyRequests, Unauthenticated
from app.core.validation import from_pydantic
from app.rest.route import allowed_methods
from app.rest.routes import ROUTES

log = logging.getLogger("tdg.rest")


def error_response(
    status: int,
    detail: str,
    *,
    code: str | None = None,
    errors: Any = None,
    headers: dict[str, str] | None = None,
) -> Response:
    body: dict[str, Any] = {"detail": detail}
    if code:
        body["code"] = code
    if errors:
        body["errors"] = errors
    return Response(orjson.dumps(body), status_code=status, media_type="application/json", headers=headers)


def method_not_allowed(method: str, allow: str) -> Response:
    """405 with the Allow header listing every method of the path (RFC 9110 §15.5.6)."""
    return error_response(
        405,
        f"Method {method[:20]} is not allowed on this path; it serves {allow}.",
        code="method_not_allowed",
        headers={"Allow": allow},
    )


@cache
def _allow_by_route_name() -> dict[str, str]:
    """Route name (a row's operation id, as app/rest/facade.py registers it) -> the Allow value of
    the row's path: every method of the path, where Starlette names only the row it matched."""
    return {r.operation_id: ", ".join(allowed_methods(ROUTES, r.path)) for r in ROUTES}


def domain_error_response(exc: DomainError) -> Response:
    headers: dict[str, str] = {}
    if isinstance(exc, TooManyRequests | Busy):
        headers["Retry-After"] = str(exc.retry_after)
    if isinstance(exc, Unauthenticated):
        headers["WWW-Authenticate"] = "Bearer"
    return error_response(exc.status, exc.detail, code=exc.code, errors=exc.errors, headers=headers or None)


def install(app: FastAPI) -> None:
    @app.exception_handler(DomainError)
    async def _domain(_: Request, exc: DomainError) -> Response:
        return domain_error_response(exc)

    @app.exception_handler(PoolTimeout)
    async def _busy(_: Request, exc: PoolTimeout) -> Response:
        # no connection for the request's session (its authentication, before any operation ran)
        return domain_error_response(Busy())

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> Response:
        # only the hand-written upload/download doors use FastAPI's own parsing
        errors = exc.errors()
        missing = next((e for e in errors if e.get("type") == "missing"), None)
        if missing:
            loc = ".".join(str(p) for p in missing.get("loc", ())[1:]) or "body"
            return error_response(400, f"Missing required field '{loc}'.", code="bad_request")
        first = errors[0] if errors else {}
        loc = ".".join(str(p) for p in first.get("loc", ())[1:]) or "request"
        return error_response(
            422, f"Invalid value for '{loc}': {first.get('msg', 'invalid')}.", code="invalid"
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 405:
            name = getattr(request.scope.get("route"), "name", None)
            allow = _allow_by_route_name().get(name or "") or (exc.headers or {}).get("Allow", "")
            return method_not_allowed(request.method, allow)
        # typed str, but fastapi.HTTPException (a subclass, also handled here) carries any JSON value
        raw: object = exc.detail
        detail = raw if isinstance(raw, str) else "Request failed."
        if exc.status_code == 404 and detail == "Not Found":
            detail = "No such path."
        return error_response(exc.status_code, detail, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> Response:
        log.exception("Unhandled error", exc_info=exc)
        return error_response(500, "Internal server error.", code="internal")


__all__ = ["domain_error_response", "error_response", "from_pydantic", "install", "method_not_allowed"]
