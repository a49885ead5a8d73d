"""Queries that run before a principal exists (login, token resolution, invitations)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, literal, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.models import ApiToken, Invitation, LoginThrottle, RevokedToken, Tenant, User


class AuthRepository:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def user_by_username(self, username: str) -> User | None:
        return (await self.session.exec(select(User).where(User.username == username))).first()

    async def user_by_id(self, user_id: int) -> User | None:
        return await self.session.get(User, user_id)

    async def tenant(self, tenant_id: int) -> Tenant | None:
        return await self.session.get(Tenant, tenant_id)

    async def is_revoked(self, jti: str) -> bool:
        return await self.session.get(RevokedToken, jti) is not None

    async def bearer(self, user_id: int, jti: str | None) -> tuple[User | None, Tenant | None, bool]:
        """The user, their tenant and whether the token id is revoked, in one round trip: this
        runs before every authenticated request (a CI pipeline polls it)."""
        revoked = (
            select(RevokedToken.jti).where(RevokedToken.jti == jti).exists()
            if jti is not None
            else literal(False)
        )
        stmt = (
            select(User, Tenant, revoked.label("revoked"))
            .join(Tenant, col(Tenant.id) == User.tenant_id)
            .where(col(User.id) == user_id)
        )
        row = (await self.session.exec(stmt)).first()
        if row is None:
            return None, None, bool(jti is not None and await self.is_revoked(jti))
        return row[0], row[1], bool(row[2])

    async def api_token_by_hash(self, token_hash: str) -> ApiToken | None:
        return (await self.session.exec(select(ApiToken).where(ApiToken.token_hash == token_hash))).first()

    async def invitation_by_hash(self, token_hash: str) -> Invitation | None:
        return (
            await self.session.exec(select(Invitation).where(Invitation.token_hash == token_hash))
        ).first()

    async def revoke_invitations(self, user_id: int, now: datetime) -> int:
        """Mark the user's open invitations used; returns how many were open."""
        result = await self.session.exec(
            update(Invitation)
            .where(col(Invitation.user_id) == user_id, col(Invitation.used_at).is_(None))
            .values(used_at=now)
        )
        return int(result.rowcount or 0)

    async def throttle(self, key: str) -> LoginThrottle | None:
        return await self.session.get(LoginThrottle, key)

    async def purge_expired_revocations(self, now: datetime) -> None:
        await self.session.exec(delete(RevokedToken).where(col(RevokedToken.expires_at) < now))

    async def tenant_count(self) -> int:
        return len((await self.session.exec(select(Tenant.id).limit(1))).all())

    async def tenant_by_name(self, name: str) -> Tenant | None:
        return (await self.session.exec(select(Tenant).where(Tenant.name == name))).first()
