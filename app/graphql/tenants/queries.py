"""Root query fields of tenants and their audit log."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.authz import Action, require
from app.core.repositories import AuditRepository
from app.core.tenants import service as tenants
from app.graphql.context import Context
from app.graphql.paging import DEFAULT_LIMIT, check_page, parse_instant
from app.graphql.tenants.types import AuditLogEntry, AuditLogPage, Tenant, TenantPage


@strawberry.type
class TenantsQuery:
    @strawberry.field(description="Tenants the caller may see: their own, or all for a SuperUser.")
    async def tenants(
        self, info: Info[Context, None], limit: int = DEFAULT_LIMIT, offset: int = 0
    ) -> TenantPage:
        ctx = info.context
        limit, offset = check_page(limit, offset)
        rows, total = await tenants.list_visible(ctx.session, ctx.principal, limit, offset)
        return TenantPage(items=[Tenant.from_row(r) for r in rows], total=total)

    @strawberry.field(
        description="A tenant by id (SuperUser for other tenants); the caller's own when omitted."
    )
    async def tenant(self, info: Info[Context, None], tenant_id: int | None = None) -> Tenant:
        ctx = info.context
        if tenant_id is None:
            return Tenant.from_row(await tenants.current(ctx.session, ctx.principal))
        return Tenant.from_row(await tenants.get(ctx.session, ctx.principal, tenant_id))

    @strawberry.field(description="Audit records (Admin: own tenant; SuperUser: all), newest first.")
    async def audit_logs(
        self,
        info: Info[Context, None],
        action: str | None = None,
        actor_id: int | None = None,
        role: str | None = None,
        project_id: int | None = None,
        start_date: str | None = None,
        end_date: str | None = None,
        tenant_id: int | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> AuditLogPage:
        ctx = info.context
        require(ctx.principal, Action.AUDIT_READ)
        limit, offset = check_page(limit, offset)
        rows, total = await AuditRepository(ctx.session, ctx.principal).search(
            action=action,
            actor_id=actor_id,
            role=role,
            project_id=project_id,
            start=parse_instant(start_date, "start_date"),
            end=parse_instant(end_date, "end_date", end_of_day=True),
            tenant_id=tenant_id,
            limit=limit,
            offset=offset,
        )
        return AuditLogPage(items=[AuditLogEntry.from_row(r) for r in rows], total=total)
