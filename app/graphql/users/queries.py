"""Root query fields of users: the caller and the users of a tenant."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.models import Role
from app.core.users import service as users
from app.graphql.context import Context
from app.graphql.paging import DEFAULT_LIMIT, check_page
from app.graphql.users.types import User, UserPage


@strawberry.type
class UsersQuery:
    @strawberry.field(description="The caller, with the projects they can see.")
    async def me(self, info: Info[Context, None]) -> User:
        ctx = info.context
        return User.from_row(await users.get(ctx.session, ctx.principal, ctx.principal.user_id))

    @strawberry.field(
        description="Users of the caller's tenant (Manager and up); SuperUsers see every tenant."
    )
    async def users(
        self,
        info: Info[Context, None],
        q: str | None = None,
        role: Role | None = None,
        is_active: bool | None = None,
        tenant_id: int | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> UserPage:
        ctx = info.context
        limit, offset = check_page(limit, offset)
        rows, total = await users.search(
            ctx.session,
            ctx.principal,
            q=q,
            role=role,
            is_active=is_active,
            tenant_id=tenant_id,
            limit=limit,
            offset=offset,
        )
        return UserPage(items=[User.from_row(r) for r in rows], total=total)

    @strawberry.field
    async def user(self, info: Info[Context, None], user_id: int) -> User:
        ctx = info.context
        return User.from_row(await users.get(ctx.session, ctx.principal, user_id))
