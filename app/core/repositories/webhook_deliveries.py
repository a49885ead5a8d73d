"""The webhook dispatcher's queue: the system side of webhook deliveries. It acts for events
already authorised when they were recorded, claims deliveries with a lease (so several dispatchers
never send one attempt twice) and fences every outcome update by the attempt number it claimed."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import or_, update
from sqlmodel import Session, col, select

from app.core import preferences
from app.core.integrations.models import DeliveryStatus, Integration, WebhookDelivery
from app.core.models import DomainEvent
from app.core.users.models import User

PENDING = DeliveryStatus.pending.value


class DeliveryQueue:
    """System-side queries of the webhook dispatcher (synchronous, run in a worker thread)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    # -- fan-out: outbox events -> delivery rows -------------------------------------------

    def unfanned_events(self, limit: int) -> list[DomainEvent]:
        stmt = (
            select(DomainEvent)
            .where(col(DomainEvent.fanned_out_at).is_(None))
            .order_by(col(DomainEvent.created_at))
            .limit(limit)
        )
        return list(self.session.exec(stmt).all())

    def mark_fanned_out(self, event_id: str, now: datetime) -> bool:
        """Claim the event for this transaction; False when another dispatcher already did."""
        result = self.session.exec(
            update(DomainEvent)
            .where(col(DomainEvent.id) == event_id, col(DomainEvent.fanned_out_at).is_(None))
            .values(fanned_out_at=now)
        )
        return bool(result.rowcount == 1)

    def actor_forwards(self, event: DomainEvent) -> bool:
        """False when the user who caused the event switched webhook forwarding off for it."""
        actor = (event.data or {}).get("created_by")
        if not isinstance(actor, int):
            return True
        user = self.session.get(User, actor)
        return user is None or preferences.enabled(user.notification_prefs, event.type, "webhook")

    def active_webhooks(self, tenant_id: int) -> list[Integration]:
        stmt = select(Integration).where(
            Integration.tenant_id == tenant_id,
            Integration.provider == "webhook",
            col(Integration.is_active).is_(True),
        )
        return list(self.session.exec(stmt).all())

    # -- sending ---------------------------------------------------------------------------

    def due(self, now: datetime, limit: int) -> list[WebhookDelivery]:
        stmt = (
            select(WebhookDelivery)
            .where(
                WebhookDelivery.status == PENDING,
                col(WebhookDelivery.next_attempt_at) <= now,
                or_(col(WebhookDelivery.lease_until).is_(None), col(WebhookDelivery.lease_until) < now),
            )
            .order_by(col(WebhookDelivery.next_attempt_at))
            .limit(limit)
        )
        return list(self.session.exec(stmt).all())

    def claim(self, delivery_id: int, attempts: int, now: datetime, lease: timedelta) -> bool:
        result = self.session.exec(
            update(WebhookDelivery)
            .where(
                col(WebhookDelivery.id) == delivery_id,
                col(WebhookDelivery.status) == PENDING,
                col(WebhookDelivery.attempts) == attempts,
                or_(col(WebhookDelivery.lease_until).is_(None), col(WebhookDelivery.lease_until) < now),
            )
            .values(lease_until=now + lease)
        )
        return bool(result.rowcount == 1)

    def integration(self, integration_id: int) -> Integration | None:
        return self.session.get(Integration, integration_id)

    def delivery(self, delivery_id: int) -> WebhookDelivery | None:
        return self.session.get(WebhookDelivery, delivery_id)

    def record_outcome(self, delivery_id: int, claimed_attempts: int, **values: object) -> bool:
        """Write the outcome of the attempt this dispatcher claimed (fenced by the attempt count)."""
        result = self.session.exec(
            update(WebhookDelivery)
            .where(
                col(WebhookDelivery.id) == delivery_id,
                col(WebhookDelivery.attempts) == claimed_attempts,
                col(WebhookDelivery.status) == PENDING,
            )
            .values(**values)
        )
        return bool(result.rowcount == 1)

    def count_failed_event(self, integration_id: int) -> int:
        """One more event that could not be delivered; returns the consecutive count."""
        self.session.exec(
            update(Integration)
            .where(col(Integration.id) == integration_id)
            .values(consecutive_failures=Integration.consecutive_failures + 1)
        )
        return int(
            self.session.exec(
                select(Integration.consecutive_failures).where(col(Integration.id) == integration_id)
            ).one()
        )

    def reset_failures(self, integration_id: int) -> None:
        self.session.exec(
            update(Integration)
            .where(col(Integration.id) == integration_id, col(Integration.consecutive_failures) != 0)
            .values(consecutive_failures=0)
        )

    def disable(self, integration_id: int, reason: str, now: datetime) -> bool:
        result = self.session.exec(
            update(Integration)
            .where(col(Integration.id) == integration_id, col(Integration.is_active).is_(True))
            .values(is_active=False, disabled_reason=reason, updated_at=now)
        )
        return bool(result.rowcount == 1)
