"""Turning pydantic validation failures into one-sentence domain errors (DESIGN §11):
a missing required field is 400, a present but invalid value is 422."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from app.core.errors import BadRequest, DomainError, Invalid

M = TypeVar("M", bound=BaseModel)


def _loc(error: Any) -> str:
    return ".".join(str(p) for p in error.get("loc", ())) or "body"


def from_pydantic(exc: ValidationError) -> DomainError:
    errors = exc.errors(include_url=False, include_input=False)
    fields = [{"field": _loc(e), "message": e.get("msg", ""), "type": e.get("type", "")} for e in errors]
    missing = [e for e in errors if e.get("type") == "missing"]
    if missing:
        return BadRequest(f"Missing required field '{_loc(missing[0])}'.", errors=fields)
    first = errors[0]
    if first.get("type") == "extra_forbidden":
        return Invalid(f"Unknown field '{_loc(first)}' is not accepted here.", errors=fields)
    message = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
    return Invalid(f"Invalid value for '{_loc(first)}': {message}.".replace("..", "."), errors=fields)


def parse(model: type[M], data: Any) -> M:
    """Validate `data` with `model`, raising BadRequest/Invalid with a one-sentence detail."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise from_pydantic(exc) from None
