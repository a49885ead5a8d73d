"""System-side queries of the retention purge: completed datasets older than their tenant's
retention period, which datasets still exist or run (for the sweep of leftover folders), and the
event and delivery history past its retention. Not principal-scoped: the tenant's own setting
(or the operator's, for the history) authorises the purge."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, update
from sqlmodel import Session, col, select

from app.core.datasets.models import Dataset, DatasetFile, DatasetStatus
from app.core.integrations.models import DeliveryAttempt, DeliveryStatus, WebhookDelivery
from app.core.models import DomainEvent
from app.core.tenants.models import Tenant


class RetentionRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    def tenants_with_retention(self) -> list[Tenant]:
        return list(self.session.exec(select(Tenant).where(col(Tenant.retention_days).is_not(None))).all())

    def expired_datasets(self, tenant_id: int, cutoff: datetime, limit: int) -> list[Dataset]:
        stmt = (
            select(Dataset)
            .where(
                Dataset.tenant_id == tenant_id,
                Dataset.status == DatasetStatus.completed.value,
                col(Dataset.finished_at) < cutoff,
            )
            .order_by(col(Dataset.id))
            .limit(limit)
        )
        return list(self.session.exec(stmt).all())

    def expire(self, dataset_id: int, reason: str) -> bool:
        """completed -> expired and its file rows gone, unless the dataset changed meanwhile."""
        result = self.session.exec(
            update(Dataset)
            .where(col(Dataset.id) == dataset_id, col(Dataset.status) == DatasetStatus.completed.value)
            .values(status=DatasetStatus.expired.value, error=reason)
        )
        if result.rowcount != 1:
            return False
        self.session.exec(delete(DatasetFile).where(col(DatasetFile.dataset_id) == dataset_id))
        return True

    def prune_history(self, cutoff: datetime) -> tuple[int, int]:
        """Delete events fanned out before `cutoff` and deliveries that ended before it (with
        their attempts); pending deliveries and events not yet fanned out always stay.
        Returns (events, deliveries) deleted."""
        ended = select(WebhookDelivery.id).where(
            col(WebhookDelivery.status).in_([DeliveryStatus.succeeded.value, DeliveryStatus.failed.value]),
            col(WebhookDelivery.finished_at) < cutoff,
        )
        # attempts first and explicitly: SQLite enforces ON DELETE CASCADE only with foreign keys on
        self.session.exec(delete(DeliveryAttempt).where(col(DeliveryAttempt.delivery_id).in_(ended)))
        deliveries = self.session.exec(delete(WebhookDelivery).where(col(WebhookDelivery.id).in_(ended)))
        events = self.session.exec(
            delete(DomainEvent).where(
                col(DomainEvent.fanned_out_at).is_not(None), col(DomainEvent.fanned_out_at) < cutoff
            )
        )
        return int(events.rowcount or 0), int(deliveries.rowcount or 0)

    def statuses(self, dataset_ids: list[int]) -> dict[int, str]:
        """The status of each of these datasets that still exists."""
        if not dataset_ids:
            return {}
        stmt = select(Dataset.id, Dataset.status).where(col(Dataset.id).in_(dataset_ids))
        return {int(i): s for i, s in self.session.exec(stmt).all() if i is not None}
