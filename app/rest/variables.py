"""A route row's GraphQL variables from the HTTP request: path parameters (1..2**31-1, else 404),
query parameters converted by type, a JSON body validated by the row's payload model (or the
multipart upload door, or a login form). Shared by the facade and the download door."""

from __future__ import annotations

import base64
import re
from typing import Any

import orjson
from fastapi import Request
from pydantic import BaseModel

from app.core.errors import BadRequest, Invalid, NotFound, PayloadTooLarge, UnsupportedMedia
from app.core.models import Role
from app.core.validation import parse as validate_payload
from app.generation.schema.loader import MAX_SCHEMA_BYTES
from app.rest.route import Param, Route

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
        kind = {
            "int": "an integer",
            "bool": "true or false",
            "role": "one of " + ", ".join(r.value for r in Role),
            "date": "a date",
        }.get(param.type, "text")
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
        raise PayloadTooLarge(
            f"The {what} is larger than the limit of {limit:,} bytes ({limit / 2**20:g} MiB)."
        )
    data: dict[str, Any] = {
        "content_base64": base64.b64encode(raw).decode("ascii"),
        "filename": upload.filename,
    }
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
    if route.multipart and route.body is not None and ctype == "multipart/form-data":
        upload = await _multipart_upload(request, route.body)
        _reject_nul(upload, "The form")
        variables["input"] = validate_payload(route.body, upload).model_dump(mode="json", exclude_unset=True)
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
