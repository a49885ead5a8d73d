"""Root mutations of users: creation, invitation, update, and the password an invitation sets.

setup_password ends an invitation (core: auth.setup_password with a users payload); it sits here
since the root fields keep their published order (docs/schema.graphql)."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.auth import service as auth
from app.core.users import payloads as users_payloads
from app.core.users import service as users
from app.graphql.context import Context
from app.graphql.inputs import (
    SetupPasswordInput,
    UserCreateInput,
    UserInviteInput,
    UserUpdateInput,
    to_payload,
)
from app.graphql.users.types import User, UserCreated


def _created(c: users.CreatedUser) -> UserCreated:
    base = User.from_row(c.user)
    return UserCreated(**vars(base), invitation_token=c.invitation_token, invitation_url=c.invitation_url)


@strawberry.type
class UsersMutation:
    @strawberry.mutation
    async def create_user(self, info: Info[Context, None], input: UserCreateInput) -> UserCreated:
        ctx = info.context
        data = to_payload(users_payloads.UserCreate, input)
        return _created(await users.create(ctx.session, ctx.principal, ctx.settings, data))

    @strawberry.mutation
    async def invite_user(self, info: Info[Context, None], input: UserInviteInput) -> UserCreated:
        ctx = info.context
        data = to_payload(users_payloads.UserInvite, input)
        return _created(await users.invite(ctx.session, ctx.principal, ctx.settings, data))

    @strawberry.mutation
    async def update_user(self, info: Info[Context, None], user_id: int, input: UserUpdateInput) -> User:
        ctx = info.context
        data = to_payload(users_payloads.UserUpdate, input)
        return User.from_row(await users.update(ctx.session, ctx.principal, user_id, data))

    @strawberry.mutation(description="Set a password from an invitation token (no authentication).")
    async def setup_password(self, info: Info[Context, None], input: SetupPasswordInput) -> User:
        ctx = info.context
        return User.from_row(
            await auth.setup_password(ctx.session, ctx.meta, to_payload(users_payloads.SetupPassword, input))
        )
