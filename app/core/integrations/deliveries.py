"""The delivery log of a webhook integration and manual redelivery. Sending itself is the
dispatcher's job (app/core/webhooks/dispatcher.py); these calls only read and enqueue."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.authz import Action, require
from app.core.error_codes import ErrorCode
from app.core.errors import Invalid
from app.core.integrations import service as integrations
from app.core.integrations.models import DeliveryAttempt, WebhookDelivery
from app.core.integrations.repository import IntegrationRepository
from app.core.models import utcnow
from app.core.principal import Principal
from app.core.services import audit

DeliveryWithAttempts = tuple[WebhookDelivery, list[DeliveryAttempt]]


async def deliveries(
    session: AsyncSession, principal: Principal, integration_id: int, *, limit: int, offset: int
) -> tuple[list[DeliveryWithAttempts], int]:
    await integrations.get(session, principal, integration_id)
    repo = IntegrationRepository(session, principal)
    rows, total = await repo.deliveries(integration_id, limit=limit, offset=offset)
    attempts = await repo.attempts_of([r.id for r in rows if r.id is not None])
    return [(r, attempts.get(r.id, [])) for r in rows if r.id is not None], total


async def redeliver(
    session: AsyncSession, principal: Principal, integration_id: int, delivery_id: int
) -> DeliveryWithAttempts:
    """Queue the same event again (same body, same webhook-id, so receivers can deduplicate)."""
    row = await integrations.get(session, principal, integration_id)
    require(principal, Action.INTEGRATION_MANAGE)
    original = await IntegrationRepository(session, principal).delivery(integration_id, delivery_id)
    integrations.ensure_active(row)
    if row.provider != "webhook":
        raise Invalid("Only webhook deliveries can be redelivered.", code=ErrorCode.NOT_A_WEBHOOK_DELIVERY)
    copy = WebhookDelivery(
        integration_id=integration_id,
        tenant_id=original.tenant_id,
        webhook_id=original.webhook_id,
        event_type=original.event_type,
        body=original.body,
        next_attempt_at=utcnow(),
    )
    session.add(copy)
    await session.flush()
    audit.record(
        session,
        principal,
        "integration.redeliver",
        target_type="webhook_delivery",
        target_id=copy.id,
        details={
            "integration_id": integration_id,
            "original_delivery_id": delivery_id,
            "webhook_id": original.webhook_id,
        },
    )
    return copy, []
