"""Tenants: a caller sees their own; a SuperUser sees all."""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import col, select

from app.core.errors import NotFound
from app.core.models import Tenant
from app.core.repositories.base import ScopedRepository, page


class TenantRepository(ScopedRepository):
    async def get(self, tenant_id: int) -> Tenant:
        tenant = await self.session.get(Tenant, tenant_id)
        if tenant is None or not (self.principal.is_superuser or tenant.id == self.principal.tenant_id):
            raise NotFound(f"Tenant {tenant_id} was not found.")
        return tenant

    async def list(self, limit: int, offset: int) -> tuple[list[Tenant], int]:
        stmt = select(Tenant).where(self.tenant_clause(Tenant.id))
        total = (await self.session.exec(select(func.count()).select_from(stmt.subquery()))).one()
        rows = (await self.session.exec(page(stmt.order_by(col(Tenant.id)), limit, offset))).all()
        return list(rows), int(total)

    async def name_taken(self, name: str, *, except_id: int | None = None) -> bool:
        stmt = select(Tenant.id).where(func.lower(Tenant.name) == name.lower())
        if except_id is not None:
            stmt = stmt.where(Tenant.id != except_id)
        return (await self.session.exec(stmt)).first() is not None
