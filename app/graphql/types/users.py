"""User, token and invitation types."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import strawberry
from strawberry.types import Info

from app.core.auth.models import ApiToken as ApiTokenRow
from app.core.clock import iso
from app.core.models import Role, TokenAction
from app.core.users.models import User as UserRow
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


@strawberry.type
class TokenResponse:
    access_token: str
    token_type: str
    expires_in: int


@strawberry.type(description="An API token; the secret itself is only returned once, at creation.")
class ApiToken:
    token_id: int
    name: str
    prefix: str
    created_at: str
    last_used_at: str | None
    expires_at: str | None
    project_ids: list[int] | None = strawberry.field(
        description="Scope: the only projects the token reaches; null for every project its owner sees"
    )
    actions: list[TokenAction] | None = strawberry.field(
        description="Scope: the only actions the token takes; null for an unscoped token, which has "
        "its owner's full power"
    )

    @classmethod
    def from_row(cls, row: ApiTokenRow) -> ApiToken:
        assert row.id is not None
        actions = row.scope_actions
        return cls(
            token_id=row.id,
            name=row.name,
            prefix=row.token_prefix,
            created_at=iso(row.created_at) or "",
            last_used_at=iso(row.last_used_at),
            expires_at=iso(row.expires_at),
            project_ids=list(row.scope_project_ids) if row.scope_project_ids is not None else None,
            actions=[TokenAction(a) for a in actions] if actions is not None else None,
        )


@strawberry.type
class ApiTokenCreated(ApiToken):
    token: str
