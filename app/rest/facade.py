"""Turns the route table into HTTP routes. Each route: path/query/body -> variables, run the
stored operation through the same schema and context as /graphql, map the result to HTTP."""

from __future__ import annotations

import base64
import logging
import re
from datetime import date
from typing import Any

import orjson
from fastapi import APIRouter, Depends, Request
from graphql import GraphQLError, parse, validate
from pydantic import BaseModel
from starlette.responses import Response

from app.core.errors import (
    BadRequest,
    DomainError,
    Invalid,
    NotFound,
    PayloadTooLarge,
    UnsupportedMedia,
)
from app.core.models import Role
from app.core.validation import parse as validate_payload
from app.generation.schema.loader import MAX_SCHEMA_BYTES
from app.graphql.context import Context, open_context
from app.rest.errors import domain_error_response, error_response
from app.rest.route import Param, Route

log = logging.getLogger("tdg.rest")
MAX_ID = 2**31 - 1
_INT = re.compile(r"-?[0-9]+")
_JSON_TYPES = ("application/json",)
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _convert(param: Param, raw: str) -> Any:
    try:
        match param.type:
            case "int":
                # ASCII digits only: str.isdigit() and int() also accept other scripts' digits
                if not _INT.fullmatch(raw):
                    raise ValueError
                value = int(raw)
                # GraphQL Int is 32-bit: a larger variable fails coercion inside the engine
                if not -MAX_ID - 1 <= value <= MAX_ID:
                    raise Invalid(f"Query parameter '{param.name}' is out of range (at most {MAX_ID}).")
                return value
            case "bool":
                lowered = raw.lower()
                if lowered not in {"true", "false", "1", "0"}:
                    raise ValueError
                return lowered in {"true", "1"}
            case "role":
                return Role(raw).value
            case "date":
                return raw
            case _:
                return raw
    except ValueError:
        kind = {"int": "an integer", "bool": "true or false", "role": "one of " + ", ".join(r.value for r in Role),
                "date": "a date"}.get(param.type, "text")
        raise Invalid(f"Query parameter '{param.name}' must be {kind}.") from None


async def _json_body(request: Request) -> Any:
    raw = await request.body()
    if not raw.strip():
        raise BadRequest("A JSON request body is required.")
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype not in _JSON_TYPES and not ctype.endswith("+json"):
        raise UnsupportedMedia("Send the request body as JSON with 'Content-Type: application/json'.")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise BadRequest(f"The request body is not valid JSON ({str(exc).split(':')[0]}).") from None


async def _form_body(request: Request) -> dict[str, Any]:
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype not in _FORM_TYPES:
        raise UnsupportedMedia("Send the login form as 'application/x-www-form-urlencoded'.")
    form = await request.form()
    return {k: v for k, v in form.items() if isinstance(v, str)}


async def _multipart_upload(request: Request, model: type[BaseModel]) -> dict[str, Any]:
    """The upload door: a multipart `file` part becomes the same input as a JSON body. The body
    model may cap the file with a `max_upload_bytes` class attribute (default: the schema limit)."""
    form = await request.form(max_files=1, max_fields=10)
    upload = form.get("file")
    if upload is None or isinstance(upload, str):
        raise BadRequest("Missing required field 'file' (a multipart file part).")
    limit: int = getattr(model, "max_upload_bytes", MAX_SCHEMA_BYTES)
    raw = await upload.read(limit + 1)
    if len(raw) > limit:
        what = "schema file" if limit == MAX_SCHEMA_BYTES else "file"
        raise PayloadTooLarge(f"The {what} is larger than the limit of {limit:,} bytes ({limit / 2**20:g} MiB).")
    data: dict[str, Any] = {"content_base64": base64.b64encode(raw).decode("ascii"), "filename": upload.filename}
    for key in ("name", "project_id"):
        if key not in model.model_fields:
            continue
        value = form.get(key)
        if isinstance(value, str) and value != "":
            data[key] = _convert(Param(key, "int" if key == "project_id" else "str"), value)
    return data


def _reject_nul(value: Any, where: str) -> None:
    """NUL cannot be stored in PostgreSQL text (SQLite would keep it): refuse it at the door."""
    if isinstance(value, str):
        if "\x00" in value:
            raise Invalid(f"{where} must not contain NUL (U+0000) characters.")
    elif isinstance(value, dict):
        for key, item in value.items():
            _reject_nul(key, where)
            _reject_nul(item, where)
    elif isinstance(value, list):
        for item in value:
            _reject_nul(item, where)


async def build_variables(route: Route, request: Request) -> dict[str, Any]:
    variables: dict[str, Any] = dict(route.extra_variables)
    for name in route.path_params:
        value = int(request.path_params[name])  # the path converter guarantees digits
        if not 1 <= value <= MAX_ID:
            raise NotFound(f"No resource with {name} {value}.")
        variables[name] = value
    for param in route.query:
        raw = request.query_params.get(param.name)
        _reject_nul(raw, f"Query parameter '{param.name}'")
        variables[param.name] = _convert(param, raw) if raw not in (None, "") else param.default
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if route.multipart and ctype == "multipart/form-data":
        upload = await _multipart_upload(request, route.body)  # type: ignore[arg-type]
        _reject_nul(upload, "The form")
        variables["input"] = validate_payload(route.body, upload).model_dump(  # type: ignore[arg-type]
            mode="json", exclude_unset=True)
    elif route.body is not None:
        body = await _json_body(request)
        if not isinstance(body, dict):
            raise BadRequest("The request body must be a JSON object.")
        _reject_nul(body, "The request body")
        checked = validate_payload(route.body, body).model_dump(mode="json", exclude_unset=True)
        if route.body_variables:
            variables.update(checked)
        else:
            variables["input"] = checked
    if route.form is not None:
        form = await _form_body(request)
        _reject_nul(form, "The form")
        variables.update(validate_payload(route.form, form).model_dump(mode="json"))
    return variables


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
        return error_response(500, "Internal server error.", code="internal")
    return error_response(_status_of(error), error.message, code=str(ext.get("code", "bad_request")))


def make_endpoint(route: Route):  # type: ignore[no-untyped-def]
    async def endpoint(request: Request, context: Context = Depends(open_context)) -> Response:
        if route.auth:
            context.principal  # noqa: B018  (401 before any body parsing)
        variables = await build_variables(route, request)
        schema = request.app.state.schema
        result = await schema.execute(route.operation, variable_values=variables, context_value=context)
        if result.errors:
            return _error_from_graphql(result.errors[0])
        payload = (result.data or {})[route.result]
        headers = None
        if route.paged:
            headers = {"X-Total-Count": str(payload["total"])}
            payload = payload["items"]
        return Response(orjson.dumps(payload, default=_default), status_code=route.status,
                        media_type="application/json", headers=headers)

    endpoint.__name__ = route.operation_id
    return endpoint


def _default(value: Any) -> Any:
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError


def starlette_path(route: Route) -> str:
    path = route.path
    for name in route.path_params:
        path = path.replace("{" + name + "}", "{" + name + ":int}")
    return path


def build_router(routes: tuple[Route, ...], graphql_schema: Any) -> APIRouter:
    """Validate every stored operation against the schema, then register one route per row."""
    problems = []
    for route in routes:
        if route.operation is None:
            continue
        errors = validate(graphql_schema._schema, parse(route.operation))
        if errors:
            problems.append(f"{route.method} {route.path}: {errors[0].message}")
    if problems:
        raise RuntimeError("Stored REST operations do not match the GraphQL schema:\n" + "\n".join(problems))
    from app.rest.downloads import make_download_endpoint

    router = APIRouter()
    for route in routes:
        endpoint = make_download_endpoint(route) if route.download else make_endpoint(route)
        router.add_api_route(
            starlette_path(route), endpoint, methods=[route.method], include_in_schema=False,
            name=route.operation_id,
        )
    return router
