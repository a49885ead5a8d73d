"""Tenants: a caller sees their own; a SuperUser sees all."""

from __future__ import annotations

import builtins
from collections.abc import Sequence

from sqlalchemy import func
from sqlmodel import col

from app.core.repositories.base import ScopedRepository
from app.core.tenants.models import Tenant


class TenantRepository(ScopedRepository):
    async def get(self, tenant_id: int) -> Tenant:
        return await self.get_owned(Tenant, tenant_id)

    async def names(self, tenant_ids: Sequence[int]) -> dict[int, str]:
        """The names of those of `tenant_ids` the caller may see."""
        stmt = self.select(Tenant).where(col(Tenant.id).in_(tenant_ids))
        return {t.id: t.name for t in (await self.session.exec(stmt)).all() if t.id is not None}

    async def list(self, limit: int, offset: int) -> tuple[builtins.list[Tenant], int]:
        return await self.paginate(self.select(Tenant).order_by(col(Tenant.id)), limit, offset)

    async def name_taken(self, name: str, *, except_id: int | None = None) -> bool:
        # names are unique across tenants: the check spans tenants the caller cannot see
        stmt = self.unscoped(Tenant.id).where(func.lower(Tenant.name) == name.lower())
        if except_id is not None:
            stmt = stmt.where(Tenant.id != except_id)
        return (await self.session.exec(stmt)).first() is not None
