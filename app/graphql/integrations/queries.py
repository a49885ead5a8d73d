"""Root query fields of the tenant's integrations: providers, integrations, webhook deliveries."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.integrations import deliveries as webhooks
from app.core.integrations import service as integrations
from app.graphql.context import Context
from app.graphql.integrations.types import (
    DeliveryPage,
    Integration,
    IntegrationPage,
    IntegrationProvider,
    WebhookDelivery,
)
from app.graphql.paging import DEFAULT_LIMIT, check_page


@strawberry.type
class IntegrationsQuery:
    @strawberry.field(description="Integration providers and their configuration fields.")
    def integration_providers(self) -> list[IntegrationProvider]:
        return [IntegrationProvider.from_provider(p) for p in integrations.list_providers()]

    @strawberry.field(description="Integrations of the caller's tenant (Manager and up).")
    async def integrations(
        self, info: Info[Context, None], limit: int = DEFAULT_LIMIT, offset: int = 0
    ) -> IntegrationPage:
        ctx = info.context
        limit, offset = check_page(limit, offset)
        rows, total = await integrations.list_visible(ctx.session, ctx.principal, limit=limit, offset=offset)
        return IntegrationPage(items=[Integration.from_row(r) for r in rows], total=total)

    @strawberry.field
    async def integration(self, info: Info[Context, None], integration_id: int) -> Integration:
        ctx = info.context
        return Integration.from_row(await integrations.get(ctx.session, ctx.principal, integration_id))

    @strawberry.field(
        description="The webhook delivery log of an integration, newest first, with every attempt."
    )
    async def integration_deliveries(
        self, info: Info[Context, None], integration_id: int, limit: int = DEFAULT_LIMIT, offset: int = 0
    ) -> DeliveryPage:
        ctx = info.context
        limit, offset = check_page(limit, offset)
        rows, total = await webhooks.deliveries(
            ctx.session, ctx.principal, integration_id, limit=limit, offset=offset
        )
        return DeliveryPage(items=[WebhookDelivery.from_row(r, a) for r, a in rows], total=total)
