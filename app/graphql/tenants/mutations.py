"""Root mutations of tenants: creation (with the first admin) and update."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.tenants import payloads as tenants_payloads
from app.core.tenants import service as tenants
from app.graphql.context import Context
from app.graphql.inputs import TenantCreateInput, TenantUpdateInput, to_payload
from app.graphql.tenants.types import Tenant, TenantCreated


@strawberry.type
class TenantsMutation:
    @strawberry.mutation
    async def create_tenant(self, info: Info[Context, None], input: TenantCreateInput) -> TenantCreated:
        ctx = info.context
        tenant, admin = await tenants.create(
            ctx.session, ctx.principal, to_payload(tenants_payloads.TenantCreate, input)
        )
        assert admin.id is not None
        return TenantCreated(
            **vars(Tenant.from_row(tenant)), admin_user_id=admin.id, admin_username=admin.username
        )

    @strawberry.mutation
    async def update_tenant(
        self, info: Info[Context, None], tenant_id: int, input: TenantUpdateInput
    ) -> Tenant:
        ctx = info.context
        data = to_payload(tenants_payloads.TenantUpdate, input)
        return Tenant.from_row(await tenants.update(ctx.session, ctx.principal, tenant_id, data))
