"""What a client sends to sign in, to make an API token and to turn two-factor on or off."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import (
    ConfigDict,
    Field,
    StringConstraints,
)

from app.core.models import TokenAction
from app.core.payloads import NOT_BLANK, Id, ShortName, Strict, documented


class ApiTokenCreate(Strict):
    name: ShortName
    expires_at: datetime | None = Field(
        default=None,
        description="When the token stops working: a time in the future (a past one is refused); "
        "omit or null for a token that never expires",
    )
    # the scope: with either of these the token is scoped; with neither it has its owner's full power
    project_ids: list[Id] | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        description="Scope: the only projects the token may reach (each one you can see); omit or null "
        "for every project you see",
    )
    actions: list[TokenAction] | None = Field(
        default=None,
        min_length=1,
        description="Scope: the only actions the token may take: read (every query), upload (upload and "
        "change schemas and constraint sets, link schemas to projects), generate (create, start, cancel "
        "and delete datasets), download (files, download links, export to an object store). Omit or null "
        "for all four when project_ids is given. A scoped token never manages projects, members, users, "
        "tenants, integrations or its owner's account; omit both fields for an unscoped token, with "
        "its owner's full power",
    )

    model_config = ConfigDict(extra="forbid", strict=False)  # ISO strings must parse to datetimes


class LoginForm(Strict):
    username: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    password: Annotated[str, StringConstraints(min_length=1, max_length=1000)]
    otp: Annotated[str, StringConstraints(max_length=64)] | None = None


OneTimeCode = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=64), documented(pattern=NOT_BLANK)
]


class TwoFactorEnable(Strict):
    code: OneTimeCode | None = Field(
        default=None, description="Omit to start enrolment; send the app's code to confirm"
    )


class TwoFactorDisable(Strict):
    password: Annotated[str, StringConstraints(min_length=1, max_length=1000)]
    code: OneTimeCode = Field(description="A current authenticator code or an unused recovery code")
