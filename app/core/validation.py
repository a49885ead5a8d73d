"""Turning pydantic validation failures into one-sentence domain errors (DESIGN §11):
a missing required field is 400 (`required`), an unknown key 422 (`unknown_field`), a present but
invalid value 422 (`invalid_value`); `field` is the first failure's path, `errors` lists them all."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from app.core.error_codes import ErrorCode
from app.core.errors import BadRequest, DomainError, Invalid

M = TypeVar("M", bound=BaseModel)


def _loc(error: Any) -> str:
    return ".".join(str(p) for p in error.get("loc", ())) or "body"


def from_pydantic(exc: ValidationError) -> DomainError:
    errors = exc.errors(include_url=False, include_input=False)
    fields = [{"field": _loc(e), "message": e.get("msg", ""), "type": e.get("type", "")} for e in errors]
    missing = [e for e in errors if e.get("type") == "missing"]
    if missing:
        field = _loc(missing[0])
        return BadRequest(
            f"Missing required field '{field}'.", code=ErrorCode.REQUIRED, field=field, errors=fields
        )
    first = errors[0]
    field = _loc(first)
    if first.get("type") == "extra_forbidden":
        return Invalid(
            f"Unknown field '{field}' is not accepted here.",
            code=ErrorCode.UNKNOWN_FIELD,
            field=field,
            errors=fields,
        )
    message = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
    return Invalid(
        f"Invalid value for '{field}': {message}.".replace("..", "."),
        code=ErrorCode.INVALID_VALUE,
        field=field,
        errors=fields,
    )


def parse(model: type[M], data: Any) -> M:
    """Validate `data` with `model`, raising BadRequest/Invalid with a one-sentence detail."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise from_pydantic(exc) from None
