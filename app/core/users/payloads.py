"""What a client sends to create, invite or change users, and to change its own settings."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import (
    Field,
    StringConstraints,
)

from app.core.models import Role
from app.core.payloads import BASE64, Email, Id, Password, Strict, Update, Username, documented


class UserCreate(Strict):
    username: Username
    email: Email | None = None
    password: Password | None = Field(default=None, description="Omit to create an invitation instead")
    role: Role = Field(default=Role.Tester, strict=False)
    display_name: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] | None = None
    tenant_id: Id | None = Field(default=None, description="SuperUser only: create in another tenant")


class UserInvite(Strict):
    username: Username
    email: Email
    role: Role = Field(default=Role.Tester, strict=False)
    display_name: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] | None = None


class UserUpdate(Update):
    role: Role | None = Field(default=None, strict=False)
    is_active: bool | None = None
    display_name: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] | None = None
    email: Email | None = None


class SetupPassword(Strict):
    token: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    password: Password


Theme = Literal["light", "dark", "system"]


Locale = Annotated[str, StringConstraints(pattern=r"^[a-z]{2,3}(_[A-Z]{2})?$", max_length=10)]


class SettingsUpdate(Update):
    display_name: Annotated[str, StringConstraints(strip_whitespace=True, max_length=100)] | None = None
    theme: Theme | None = None
    locale: Locale | None = Field(default=None, description="e.g. en_US, de_DE, fr_FR, ja_JP")


class AvatarUpload(Strict):
    """An avatar image (PNG, JPEG or WebP); multipart part `file`, or base64 in JSON."""

    max_upload_bytes: ClassVar[int] = 2 * 1024 * 1024
    upload_description: ClassVar[str] = "A PNG, JPEG or WebP image (not empty), up to 2 MiB"
    content_base64: Annotated[str, documented(pattern=BASE64, minLength=1)] = Field(
        description="The image bytes (not empty), base64 (multipart uploads fill this in)"
    )
    filename: Annotated[str, StringConstraints(max_length=255)] | None = None


class PasswordChange(Strict):
    current_password: Annotated[str, StringConstraints(min_length=1, max_length=1000)]
    new_password: Password


class EmailChange(Strict):
    email: Email
    password: Annotated[str, StringConstraints(min_length=1, max_length=1000)]


class AccountDelete(Strict):
    password: Annotated[str, StringConstraints(min_length=1, max_length=1000)]
