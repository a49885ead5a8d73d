"""Root query fields of authentication: the caller's API tokens and the permission table."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from app.core import authz
from app.core.auth import service as auth
from app.graphql.auth.types import ApiToken
from app.graphql.context import Context


@strawberry.type
class AuthQuery:
    @strawberry.field(description="The caller's active API tokens (secrets are never shown again).")
    async def api_tokens(self, info: Info[Context, None]) -> list[ApiToken]:
        ctx = info.context
        return [ApiToken.from_row(r) for r in await auth.list_api_tokens(ctx.session, ctx.principal)]

    @strawberry.field(
        description="The authorization table: minimum role (and project role) per action; a dataset "
        "action's row also names what a dataset created by someone else takes (others_min_role or "
        "others_min_project_role)."
    )
    def permissions(self) -> JSON:
        return JSON(authz.permission_table())
