"""Two-factor rows of one user: recovery codes and the TOTP steps already accepted. Always keyed
by a user id the caller has already resolved (the signed-in user, or the user logging in)."""

from __future__ import annotations

from sqlalchemy import delete, func, update
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.models import RecoveryCode, TotpUsedStep, utcnow
from app.core.users.models import User


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
