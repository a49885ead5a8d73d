"""A route row's GraphQL variables from the HTTP request: path ids (integers, else 422; 1..2**31-1,
else 404), query parameters checked against their Param (given once, not empty, typed, in range or
among its choices: what the OpenAPI document says), a JSON body validated by the row's payload
model (or the multipart upload door, or a login form). Shared by the facade and the download door."""

from __future__ import annotations

import base64
import re
from datetime import datetime
from typing import Any

import orjson
from fastapi import Request
from pydantic import BaseModel

from app.core.error_codes import ErrorCode
from app.core.errors import BadRequest, Invalid, NotFound, PayloadTooLarge, UnsupportedMedia
from app.core.validation import parse as validate_payload
from app.generation.schema.loader import MAX_SCHEMA_BYTES, size_text
from app.rest.route import DATE_PATTERN, MAX_INT, Param, Route, id_param

_INT = re.compile(r"-?[0-9]+")  # ASCII digits only: int() also reads other scripts' digits
_DATE = re.compile(DATE_PATTERN)
_JSON_TYPES = ("application/json",)
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
_TOO_BIG = 2**63  # stands for any integer of more than ten digits: outside every range here


def _integer(raw: str) -> int | None:
    """The integer `raw` spells, or None. Past ten digits (no 32-bit Int has more, and int() refuses
    thousands of digits with an error of its own) the value only has to be out of range."""
    if not _INT.fullmatch(raw):
        return None
    if len(raw.lstrip("-").lstrip("0")) > 10:
        return -_TOO_BIG if raw.startswith("-") else _TOO_BIG
    return int(raw)


def _is_date(raw: str) -> bool:
    if not _DATE.fullmatch(raw):
        return False
    try:
        datetime.fromisoformat(raw.upper().replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _convert(param: Param, raw: str, where: str = "Query parameter") -> Any:
    """One parameter's value from its text, refused with a sentence unless it is exactly what the
    OpenAPI document allows (app/rest/openapi.py documents the same Param)."""
    name = f"{where} '{param.name}'"
    match param.type:
        case "int":
            value = _integer(raw)
            if value is None:
                raise Invalid(f"{name} must be an integer.", code=ErrorCode.INVALID_PARAMETER, field=param.name)
            if not param.minimum <= value <= param.maximum:
                raise Invalid(f"{name} must be between {param.minimum} and {param.maximum}.", code=ErrorCode.INVALID_PARAMETER, field=param.name)
            return value
        case "bool":
            if raw not in ("true", "false"):
                raise Invalid(f"{name} must be true or false.", code=ErrorCode.INVALID_PARAMETER, field=param.name)
            return raw == "true"
        case "date":
            if not _is_date(raw):
                raise Invalid(
                    f"{name} must be an ISO 8601 date (2026-01-31) or date-time (2026-01-31T12:00:00Z).",
                    code=ErrorCode.INVALID_PARAMETER, field=param.name,
                )
            return raw
    if param.choices and raw not in param.choices:
        raise Invalid(f"{name} must be one of {', '.join(param.choices)}.", code=ErrorCode.INVALID_PARAMETER, field=param.name)
    return raw


def _single(values: list[Any], name: str) -> str | None:
    """A scalar parameter or form field is given once with a value, or not at all (None): an empty
    or repeated one is refused rather than read as absent or as its last value."""
    if not values:
        return None
    if len(values) > 1:
        raise Invalid(f"{name} is given {len(values)} times; send it once.", code=ErrorCode.INVALID_PARAMETER)
    raw = values[0]
    if not isinstance(raw, str):
        raise Invalid(f"{name} must be text, not a file.", code=ErrorCode.INVALID_PARAMETER)
    _reject_nul(raw, name)
    if raw == "":
        raise Invalid(f"{name} is empty; give it a value or leave it out.", code=ErrorCode.INVALID_PARAMETER)
    return raw


def _query_value(param: Param, request: Request) -> Any:
    raw = _single(request.query_params.getlist(param.name), f"Query parameter '{param.name}'")
    return param.default if raw is None else _convert(param, raw)


def path_id(name: str, raw: str) -> int:
    """A path id: an integer (else 422), and one that can name a row (1..2**31-1, else 404)."""
    value = _integer(raw)
    if value is None:
        raise Invalid(
            f"Path parameter '{name}' must be an integer.", code=ErrorCode.INVALID_PARAMETER, field=name
        )
    if not 1 <= value <= MAX_INT:
        raise NotFound(f"No resource with {name} {raw[:20]}.")
    return value


async def _json_body(request: Request) -> Any:
    raw = await request.body()
    if not raw.strip():
        raise BadRequest("A JSON request body is required.", code=ErrorCode.BODY_REQUIRED)
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype not in _JSON_TYPES and not ctype.endswith("+json"):
        raise UnsupportedMedia("Send the request body as JSON with 'Content-Type: application/json'.")
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise BadRequest(f"The request body is not valid JSON ({str(exc).split(':')[0]}).", code=ErrorCode.INVALID_JSON) from None


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
        raise BadRequest("Missing required field 'file' (a multipart file part).", code=ErrorCode.REQUIRED, field="file")
    limit: int = getattr(model, "max_upload_bytes", MAX_SCHEMA_BYTES)
    raw = await upload.read(limit + 1)
    if len(raw) > limit:
        what = "schema file" if limit == MAX_SCHEMA_BYTES else "file"
        raise PayloadTooLarge(f"The {what} is larger than the limit of {size_text(limit)}.", code=ErrorCode.FILE_TOO_LARGE, field="file")
    data: dict[str, Any] = {
        "content_base64": base64.b64encode(raw).decode("ascii"),
        "filename": upload.filename,
    }
    for key in ("name", "project_id"):
        if key not in model.model_fields:
            continue
        value = _single(form.getlist(key), f"Form field '{key}'")
        if value is not None:
            param = id_param(key) if key == "project_id" else Param(key)
            data[key] = _convert(param, value, where="Form field")
    return data


def _reject_nul(value: Any, where: str) -> None:
    """NUL cannot be stored in PostgreSQL text (SQLite would keep it): refuse it at the door."""
    if isinstance(value, str):
        if "\x00" in value:
            raise Invalid(f"{where} must not contain NUL (U+0000) characters.", code=ErrorCode.NUL_CHARACTER)
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
        variables[name] = path_id(name, request.path_params[name])
    for param in route.query:
        variables[param.name] = _query_value(param, request)
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if route.multipart and route.body is not None and ctype == "multipart/form-data":
        upload = await _multipart_upload(request, route.body)
        _reject_nul(upload, "The form")
        variables["input"] = validate_payload(route.body, upload).model_dump(mode="json", exclude_unset=True)
    elif route.body is not None:
        body = await _json_body(request)
        if not isinstance(body, dict):
            raise BadRequest("The request body must be a JSON object.", code=ErrorCode.BODY_NOT_OBJECT)
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
