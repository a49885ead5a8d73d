"""Integrations, their webhook deliveries and object exports, as the caller sees them
(tenant-scoped). The dispatcher's side of the deliveries is app/core/repositories/webhook_deliveries.py."""

from __future__ import annotations

import builtins
from collections.abc import Sequence

from sqlmodel import col

from app.core.integrations.models import DeliveryAttempt, Integration, ObjectExport, WebhookDelivery
from app.core.repositories.base import ScopedRepository


class IntegrationRepository(ScopedRepository):
    async def get(self, integration_id: int) -> Integration:
        return await self.get_owned(Integration, integration_id)

    async def list(self, *, limit: int, offset: int) -> tuple[builtins.list[Integration], int]:
        return await self.paginate(self.select(Integration).order_by(col(Integration.id)), limit, offset)

    async def deliveries(
        self, integration_id: int, *, limit: int, offset: int
    ) -> tuple[builtins.list[WebhookDelivery], int]:
        stmt = self.select(WebhookDelivery).where(WebhookDelivery.integration_id == integration_id)
        return await self.paginate(stmt.order_by(col(WebhookDelivery.id).desc()), limit, offset)

    async def delivery(self, integration_id: int, delivery_id: int) -> WebhookDelivery:
        return await self.get_owned(
            WebhookDelivery,
            delivery_id,
            col(WebhookDelivery.integration_id) == integration_id,
            message=f"Delivery {delivery_id} of integration {integration_id} was not found.",
        )

    async def attempts_of(self, delivery_ids: Sequence[int]) -> dict[int, builtins.list[DeliveryAttempt]]:
        out: dict[int, list[DeliveryAttempt]] = {d: [] for d in delivery_ids}
        if not delivery_ids:
            return out
        stmt = (
            self.select(DeliveryAttempt, scope=WebhookDelivery)
            .join(WebhookDelivery, col(WebhookDelivery.id) == DeliveryAttempt.delivery_id)
            .where(col(DeliveryAttempt.delivery_id).in_(delivery_ids))
            .order_by(col(DeliveryAttempt.delivery_id), col(DeliveryAttempt.attempt))
        )
        for row in (await self.session.exec(stmt)).all():
            out[row.delivery_id].append(row)
        return out

    async def exports_of(self, dataset_id: int) -> builtins.list[ObjectExport]:
        stmt = self.select(ObjectExport).where(ObjectExport.dataset_id == dataset_id)
        return list((await self.session.exec(stmt.order_by(col(ObjectExport.id)))).all())
