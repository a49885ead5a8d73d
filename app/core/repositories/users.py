"""Users of the caller's tenant (all tenants for a SuperUser)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, or_
from sqlmodel import col, select

from app.core.errors import NotFound
from app.core.models import ApiToken, Role, User
from app.core.repositories.base import ScopedRepository, page


class UserRepository(ScopedRepository):
    async def get(self, user_id: int) -> User:
        user = await self.session.get(User, user_id)
        if user is None or not (self.principal.is_superuser or user.tenant_id == self.principal.tenant_id):
            raise NotFound(f"User {user_id} was not found.")
        return user

    async def by_ids(self, ids: Sequence[int]) -> list[User]:
        stmt = select(User).where(col(User.id).in_(ids), self.tenant_clause(User.tenant_id))
        return list((await self.session.exec(stmt)).all())

    async def search(
        self,
        *,
        q: str | None,
        role: Role | None,
        is_active: bool | None,
        tenant_id: int | None,
        limit: int,
        offset: int,
    ) -> tuple[list[User], int]:
        stmt = select(User).where(self.tenant_clause(User.tenant_id))
        if tenant_id is not None:
            stmt = stmt.where(User.tenant_id == tenant_id)
        if q:
            # autoescape: '%' and '_' in the search text are literal, not wildcards
            needle = q.lower()
            stmt = stmt.where(
                or_(
                    func.lower(User.username).contains(needle, autoescape=True),
                    func.lower(func.coalesce(User.email, "")).contains(needle, autoescape=True),
                    func.lower(func.coalesce(User.display_name, "")).contains(needle, autoescape=True),
                )
            )
        if role is not None:
            stmt = stmt.where(User.role == role.value)
        if is_active is not None:
            stmt = stmt.where(User.is_active == is_active)
        total = (await self.session.exec(select(func.count()).select_from(stmt.subquery()))).one()
        rows = (await self.session.exec(page(stmt.order_by(col(User.id)), limit, offset))).all()
        return list(rows), int(total)

    async def email_taken(self, tenant_id: int, email: str, *, except_user: int | None = None) -> bool:
        stmt = select(User.id).where(User.tenant_id == tenant_id, func.lower(User.email) == email.lower())
        if except_user is not None:
            stmt = stmt.where(User.id != except_user)
        return (await self.session.exec(stmt)).first() is not None

    async def username_taken(self, username: str) -> bool:
        # usernames are global: login takes no tenant
        return (await self.session.exec(select(User.id).where(User.username == username))).first() is not None

    async def active_admin_count(self, tenant_id: int) -> int:
        stmt = select(func.count()).where(
            User.tenant_id == tenant_id, User.role == Role.Admin.value, col(User.is_active).is_(True)
        )
        return int((await self.session.exec(stmt)).one())

    async def own_tokens(self) -> list[ApiToken]:
        stmt = (
            select(ApiToken)
            .where(ApiToken.user_id == self.principal.user_id, col(ApiToken.revoked_at).is_(None))
            .order_by(col(ApiToken.id))
        )
        return list((await self.session.exec(stmt)).all())

    async def own_token(self, token_id: int) -> ApiToken:
        token = await self.session.get(ApiToken, token_id)
        if token is None or token.user_id != self.principal.user_id or token.revoked_at is not None:
            raise NotFound(f"API token {token_id} was not found.")
        return token
