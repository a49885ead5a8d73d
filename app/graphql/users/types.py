"""User, invitation and own-settings types."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from app.core.clock import iso
from app.core.models import Role
from app.core.users import profile
from app.core.users.models import User as UserRow
from app.graphql import common as _enums  # noqa: F401  (registers Role/ProjectRole/TokenAction once, with descriptions)
from app.graphql.context import Context

if TYPE_CHECKING:
    from app.graphql.projects.types import ProjectSummary


@strawberry.type(description="A user of a tenant.")
class User:
    id: int
    username: str
    email: str | None
    display_name: str | None
    role: Role
    tenant_id: int
    is_active: bool
    two_factor_enabled: bool
    theme: str
    locale: str
    created_at: str
    last_login_at: str | None
    invitation_pending: bool

    @strawberry.field(
        description="Projects the user belongs to or created, as far as the caller may see them."
    )
    async def projects(
        self, info: Info[Context, None]
    ) -> list[Annotated[ProjectSummary, strawberry.lazy("app.graphql.projects.types")]]:
        from app.graphql.projects.types import ProjectSummary

        rows = await info.context.loaders.projects_by_user.load(self.id)
        return [ProjectSummary.from_row(r) for r in rows]

    @classmethod
    def from_row(cls, row: UserRow) -> User:
        assert row.id is not None
        return cls(
            id=row.id,
            username=row.username,
            email=row.email,
            display_name=row.display_name,
            role=Role(row.role),
            tenant_id=row.tenant_id,
            is_active=row.is_active,
            two_factor_enabled=row.two_factor_enabled,
            theme=row.theme,
            locale=row.locale,
            created_at=iso(row.created_at) or "",
            last_login_at=iso(row.last_login_at),
            invitation_pending=row.password_hash is None,
        )


@strawberry.type
class UserPage:
    items: list[User]
    total: int


@strawberry.type(description="A created user; an invitation token is returned once when no password was set.")
class UserCreated(User):
    invitation_token: str | None = None
    invitation_url: str | None = None


@strawberry.type(description="The caller's own settings.")
class UserSettings:
    user_id: int
    username: str
    email: str | None
    display_name: str | None
    theme: str
    locale: str
    avatar_url: str | None = strawberry.field(
        description="A 256x256 PNG; the URL changes when the image does"
    )
    two_factor_enabled: bool
    notifications: JSON = strawberry.field(description="Per event: {in_app, webhook} switches")

    @classmethod
    def from_row(cls, row: UserRow) -> UserSettings:
        assert row.id is not None
        return cls(
            user_id=row.id,
            username=row.username,
            email=row.email,
            display_name=row.display_name,
            theme=row.theme,
            locale=row.locale,
            avatar_url=profile.avatar_url(row),
            two_factor_enabled=row.two_factor_enabled,
            notifications=JSON(profile.notification_preferences(row)),
        )


@strawberry.type(description="A password change: every earlier session token is void; use this fresh one.")
class PasswordChanged:
    ok: bool
    detail: str
    access_token: str
    token_type: str
    expires_in: int
