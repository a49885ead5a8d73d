"""Queries that run before a principal exists (login, token resolution, invitations), the
signed-in user's own API tokens and their own two-factor rows."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import bindparam, delete, func, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession
from sqlmodel.sql.expression import Select

from app.core.auth.models import ApiToken, LoginThrottle, RecoveryCode, RevokedToken, TotpUsedStep
from app.core.models import utcnow
from app.core.repositories.base import ScopedRepository
from app.core.tenants.models import Tenant
from app.core.users.models import Invitation, User


@dataclass(frozen=True, slots=True)
class Bearer:
    """What authenticating a token needs of its user and the user's tenant."""

    user_id: int
    tenant_id: int
    username: str
    role: str
    is_active: bool
    tokens_valid_after: datetime | None
    tenant_active: bool


class AuthRepository:
    # built once: its SQL (and SQLAlchemy's cache key of it) is the same for every request
    _BEARER: ClassVar[Select[*tuple[Any, ...]]] = (
        Select(  # what sqlmodel's select() builds; it takes at most four columns
            col(User.id),
            col(User.tenant_id),
            col(User.username),
            col(User.role),
            col(User.is_active),
            col(User.tokens_valid_after),
            col(Tenant.is_active),
            select(RevokedToken.jti).where(RevokedToken.jti == bindparam("jti")).exists(),
        )
        .join(Tenant, col(Tenant.id) == User.tenant_id)
        .where(col(User.id) == bindparam("user_id"))
    )

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

    async def bearer(self, user_id: int, jti: str | None) -> tuple[Bearer | None, bool]:
        """The user with their tenant's state (None: no such user) and whether the token id is
        revoked, in one round trip: this runs before every authenticated request (a CI pipeline
        polls it), so it reads the few columns it needs, with a statement built once."""
        row = (await self.session.exec(self._BEARER, params={"user_id": user_id, "jti": jti})).first()
        if row is None:
            return None, bool(jti is not None and await self.is_revoked(jti))
        return Bearer(*row[:-1]), bool(row[-1])

    async def api_token_by_hash(self, token_hash: str) -> ApiToken | None:
        return (await self.session.exec(select(ApiToken).where(ApiToken.token_hash == token_hash))).first()

    async def api_token(self, token_id: int) -> ApiToken | None:
        return await self.session.get(ApiToken, token_id)

    async def invitation_by_hash(self, token_hash: str) -> Invitation | None:
        return (
            await self.session.exec(select(Invitation).where(Invitation.token_hash == token_hash))
        ).first()

    async def throttle(self, key: str) -> LoginThrottle | None:
        return await self.session.get(LoginThrottle, key)

    async def purge_expired_revocations(self, now: datetime) -> None:
        await self.session.exec(delete(RevokedToken).where(col(RevokedToken.expires_at) < now))

    async def tenant_count(self) -> int:
        return len((await self.session.exec(select(Tenant.id).limit(1))).all())

    async def tenant_by_name(self, name: str) -> Tenant | None:
        return (await self.session.exec(select(Tenant).where(Tenant.name == name))).first()


class ApiTokenRepository(ScopedRepository):
    """The caller's own API tokens (ApiToken is user-owned: see repositories.base.USER_OWNED)."""

    async def own_tokens(self) -> list[ApiToken]:
        stmt = self.select(ApiToken).where(col(ApiToken.revoked_at).is_(None)).order_by(col(ApiToken.id))
        return list((await self.session.exec(stmt)).all())

    async def own_token(self, token_id: int) -> ApiToken:
        return await self.get_owned(ApiToken, token_id, col(ApiToken.revoked_at).is_(None))


# Two-factor rows of one user: recovery codes and the TOTP steps already accepted. Always keyed
# by a user id the caller has already resolved (the signed-in user, or the user logging in).
class TwoFactorRepository:
    def __init__(self, session: AsyncSession, user_id: int) -> None:
        self.session = session
        self.user_id = user_id

    async def lock_user(self) -> None:
        """Serialise code checks of one user, so two logins racing with the same code cannot both
        pass the replay check. A no-op UPDATE rather than SELECT ... FOR UPDATE: it takes the row
        lock on PostgreSQL and the write lock on SQLite (which has no row locks) alike."""
        await self.session.exec(
            update(User)
            .where(col(User.id) == self.user_id)
            .values(two_factor_enabled=User.two_factor_enabled)
        )

    async def last_step(self) -> int | None:
        stmt = select(func.max(TotpUsedStep.step)).where(TotpUsedStep.user_id == self.user_id)
        return (await self.session.exec(stmt)).one()

    def add_step(self, step: int) -> None:
        self.session.add(TotpUsedStep(user_id=self.user_id, step=step))

    async def forget_steps_before(self, step: int) -> None:
        await self.session.exec(
            delete(TotpUsedStep).where(
                col(TotpUsedStep.user_id) == self.user_id, col(TotpUsedStep.step) < step
            )
        )

    async def use_recovery_code(self, code_hash: str) -> bool:
        """Mark an unused code used; the guarded UPDATE makes two concurrent uses impossible."""
        result = await self.session.exec(
            update(RecoveryCode)
            .where(
                col(RecoveryCode.user_id) == self.user_id,
                col(RecoveryCode.code_hash) == code_hash,
                col(RecoveryCode.used_at).is_(None),
            )
            .values(used_at=utcnow())
        )
        return bool(result.rowcount == 1)

    async def unused_recovery_codes(self) -> int:
        stmt = select(func.count()).where(
            RecoveryCode.user_id == self.user_id, col(RecoveryCode.used_at).is_(None)
        )
        return int((await self.session.exec(stmt)).one())

    async def replace_recovery_codes(self, code_hashes: list[str]) -> None:
        await self.clear()
        for code_hash in code_hashes:
            self.session.add(RecoveryCode(user_id=self.user_id, code_hash=code_hash))

    async def clear(self) -> None:
        await self.session.exec(delete(RecoveryCode).where(col(RecoveryCode.user_id) == self.user_id))
        await self.session.exec(delete(TotpUsedStep).where(col(TotpUsedStep.user_id) == self.user_id))
