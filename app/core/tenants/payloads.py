"""What a SuperUser sends to create or change a tenant."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    Field,
)

from app.core.payloads import WHOLE, Email, Password, ShortName, Strict, Update, Username


class TenantCreate(Strict):
    name: ShortName
    admin_username: Username
    admin_email: Email
    admin_password: Password


class TenantUpdate(Update):
    name: ShortName | None = None
    is_active: bool | None = None
    max_record_count: Annotated[int, Field(ge=1, le=1_000_000_000), WHOLE] | None = None
    max_concurrent_generations: Annotated[int, Field(ge=1, le=64), WHOLE] | None = None
    retention_days: Annotated[int, Field(ge=1, le=3650), WHOLE] | None = None
