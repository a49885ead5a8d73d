"""Users of the caller's tenant (all tenants for a SuperUser)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, or_
from sqlmodel import col

from app.core.models import Role
from app.core.repositories.base import ScopedRepository
from app.core.repositories.text_match import contains_folded
from app.core.tenants.models import Tenant
from app.core.users.models import Invitation, User


class UserRepository(ScopedRepository):
    async def get(self, user_id: int) -> User:
        return await self.get_owned(User, user_id)

    async def tenant(self, tenant_id: int) -> Tenant:
        """A tenant the caller sees, for creating a user in it (a query over tenants' table: the
        tenants domain sits above users, its first admin is made with UserRepository)."""
        return await self.get_owned(Tenant, tenant_id)

    async def by_ids(self, ids: Sequence[int]) -> list[User]:
        stmt = self.select(User).where(col(User.id).in_(ids))
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
        stmt = self.select(User)
        if tenant_id is not None:
            stmt = stmt.where(User.tenant_id == tenant_id)
        if q:
            stmt = stmt.where(
                or_(
                    contains_folded(User.username, q),
                    contains_folded(func.coalesce(User.email, ""), q),
                    contains_folded(func.coalesce(User.display_name, ""), q),
                )
            )
        if role is not None:
            stmt = stmt.where(User.role == role.value)
        if is_active is not None:
            stmt = stmt.where(User.is_active == is_active)
        return await self.paginate(stmt.order_by(col(User.id)), limit, offset)

    async def email_taken(self, tenant_id: int, email: str, *, except_user: int | None = None) -> bool:
        stmt = self.select(User.id).where(
            User.tenant_id == tenant_id, func.lower(User.email) == email.lower()
        )
        if except_user is not None:
            stmt = stmt.where(User.id != except_user)
        return (await self.session.exec(stmt)).first() is not None

    async def username_taken(self, username: str) -> bool:
        # usernames are global: login takes no tenant
        return (
            await self.session.exec(self.unscoped(User.id).where(User.username == username))
        ).first() is not None

    async def active_admin_count(self, tenant_id: int) -> int:
        stmt = self.select(func.count(), scope=User).where(
            User.tenant_id == tenant_id, User.role == Role.Admin.value, col(User.is_active).is_(True)
        )
        return int((await self.session.exec(stmt)).one())

    async def revoke_invitations(self, user_id: int, now: datetime) -> int:
        """Mark the user's open invitations used; returns how many were open."""
        result = await self.session.exec(
            self.update(Invitation)
            .where(col(Invitation.user_id) == user_id, col(Invitation.used_at).is_(None))
            .values(used_at=now)
        )
        return int(result.rowcount or 0)
