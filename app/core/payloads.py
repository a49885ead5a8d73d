"""Validated inputs of the service layer (the same models check REST bodies and GraphQL
inputs). Strict: `"5"` and `true` are not integers, nor is `2.5`; a whole-number float (`5.0`,
`1e3`) is one, as in JSON Schema (its `integer` is any number with a zero fractional part); unknown
keys are refused."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import email_validator
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    StringConstraints,
    WithJsonSchema,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError

from app.generation.output_formats import FORMAT_NAMES

# -- what the OpenAPI document says about a value, beyond what pydantic derives ------------------
# (the checks themselves are the validators here and in the services; these only describe them)

NUL_FREE = r"^[^\u0000]*$"  # every text is refused with U+0000 in it (PostgreSQL cannot store it)
# what strip_whitespace strips (pydantic-core trims Unicode White_Space, as Rust's str::trim does)
_WHITE_SPACE = r"\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# stripped, then at least one character: one character that is neither white space nor NUL
NOT_BLANK = rf"^[^\u0000]*[^\u0000{_WHITE_SPACE}][^\u0000]*$"
# what base64.b64decode(validate=True) takes: the standard alphabet, padded to a multiple of four
BASE64 = r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"


@dataclass(frozen=True, slots=True)
class Documented:
    """Annotation metadata adding keywords to a type's JSON schema (not to its validation)."""

    keywords: tuple[tuple[str, Any], ...]

    def __get_pydantic_json_schema__(
        self, core: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core)
        schema.update({k: list(v) if isinstance(v, tuple) else v for k, v in self.keywords})
        return schema


def documented(**keywords: Any) -> Documented:
    return Documented(tuple(keywords.items()))


Name = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200), documented(pattern=NOT_BLANK)
]
ShortName = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100), documented(pattern=NOT_BLANK)
]
Username = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=3, max_length=64, pattern=r"^[A-Za-z0-9_.@-]+$")
]
Password = Annotated[str, StringConstraints(min_length=8, max_length=256)]
Tag = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50), documented(pattern=NOT_BLANK)
]


def _integral(value: Any) -> Any:
    """A whole-number float as the integer it is (JSON Schema's `integer` counts 5.0 as one, so the
    OpenAPI document allows it); a float with a fractional part is refused with a sentence. Other
    types go on to the strict int check (which refuses "5" and true)."""
    if isinstance(value, float):
        if not value.is_integer():
            raise PydanticCustomError(
                "int_from_float", "Input should be a whole number, not {value}", {"value": value}
            )
        return int(value)
    return value


# after a type's bounds in Annotated[...] (before them, pydantic documents the bounds as `ge`/`le`
# instead of minimum/maximum); or as Integer with the bounds in the field's Field(...)
WHOLE = BeforeValidator(_integral)
Integer = Annotated[int, WHOLE]
Id = Annotated[int, Field(ge=1, le=2**31 - 1), WHOLE]


def _email(value: str) -> str:
    """pydantic's EmailStr check, except that addresses under the reserved test domains are
    accepted: this product makes test data, and `.test` (RFC 2606, refused by email-validator as
    special-use) and `.example` are where its users' sample addresses live."""
    try:
        if len(value) > 254:
            raise email_validator.EmailSyntaxError("Length must not exceed 254 characters")
        if "\r" in value or "\n" in value:
            raise email_validator.EmailSyntaxError("Carriage return and line feed characters are not allowed")
        parts = email_validator.validate_email(
            value.strip(), check_deliverability=False, test_environment=True
        )
        if "." not in parts.ascii_domain:  # test_environment also lets a bare `user@test` through
            raise email_validator.EmailSyntaxError(
                "The part after the @-sign is not valid. It should have a period."
            )
    except email_validator.EmailNotValidError as exc:
        raise PydanticCustomError(
            "value_error", "value is not a valid email address: {reason}", {"reason": str(exc)}
        ) from None
    return parts.normalized


def _any_case(word: str) -> str:
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in word)


# the special-use names email-validator refuses (RFC 6761), but for `test`, which _email accepts
REFUSED_EMAIL_DOMAINS = tuple(d for d in email_validator.SPECIAL_USE_DOMAIN_NAMES if d != "test")
_EMAIL_PATTERN = (
    r"^(?![^@]*@(?:[^@]*\.)?(?:"
    + "|".join(_any_case(d) for d in REFUSED_EMAIL_DOMAINS)
    + r")\.?$)[^@\u0000]+@[^@\u0000]+\.[^@\u0000]+$"
)
Email = Annotated[
    str,
    AfterValidator(_email),
    WithJsonSchema(
        {
            "type": "string",
            "format": "email",
            "maxLength": 254,
            "pattern": _EMAIL_PATTERN,
            "description": "An email address whose domain has a dot. Addresses under the special-use domains "
            + ", ".join(f".{d}" for d in REFUSED_EMAIL_DOMAINS)
            + " (RFC 6761) are refused; the test domains .test and .example are accepted.",
        }
    ),
]


def _refuse_nul(value: Any) -> None:
    if isinstance(value, str):
        if "\x00" in value:
            raise ValueError("text must not contain NUL characters")
    elif isinstance(value, dict):
        for v in value.values():
            _refuse_nul(v)
    elif isinstance(value, list):
        for v in value:
            _refuse_nul(v)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _no_nul(cls, data: Any) -> Any:
        # PostgreSQL cannot store NUL in text; refuse it for both REST and GraphQL callers
        _refuse_nul(data)
        return data


def _one_change(schema: dict[str, Any], model: type[BaseModel]) -> None:
    """An update changes something: at least one field present and not null (null, like an
    omitted field, means "leave as is"; a flag that defaults to false counts when true). The
    services refuse anything else with "Nothing to update"; documented as minProperties plus anyOf."""
    branches = []
    for name, info in model.model_fields.items():
        wanted = {"const": True} if info.default is False else {"not": {"type": "null"}}
        branches.append({"required": [name], "properties": {name: wanted}})
    schema["minProperties"] = 1
    schema["anyOf"] = branches


class Update(Strict):
    """A body of changes (PUT/PATCH): the fields to change, at least one."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra=_one_change)


# a format name in a list (the services refuse others with a sentence naming them)
FormatName = Annotated[str, documented(enum=FORMAT_NAMES)]


# -- settings, two-factor -------------------------------------------------------------------

NOTIFICATION_EVENTS = ("dataset.completed", "dataset.failed", "schema.uploaded", "project.created")


# -- integrations, exports ------------------------------------------------------------------


