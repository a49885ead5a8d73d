"""The webhook dispatcher: drains the event outbox into per-integration delivery rows and sends
the due ones, in its own task so no API request ever waits on a receiver.

Everything lives in the database: a restart loses nothing (a pending delivery is picked up by
the next process, a claimed one whose process died is picked up once its lease lapses). Retries
follow `webhook_retry_schedule` with the same `webhook-id`; after the last one the delivery is
`failed`, and after `webhook_max_failed_events` consecutive failed events the integration is
disabled. Delivery is at least once: receivers deduplicate by `webhook-id`."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

import orjson
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.core.clock import iso
from app.core.integrations.models import DeliveryAttempt, DeliveryStatus, WebhookDelivery
from app.core.jobs.periodic import PeriodicTask
from app.core.models import stored_id, utcnow
from app.core.repositories.webhook_deliveries import DeliveryQueue
from app.core.security.sealed import unseal_json
from app.core.settings import Settings
from app.core.webhooks import sender, signing

log = logging.getLogger("tdg.webhooks")
BATCH = 50


@dataclass(frozen=True, slots=True)
class _Claimed:
    delivery_id: int
    integration_id: int
    attempts: int  # attempts made before this one (the fence)
    webhook_id: str
    body: bytes
    url: str
    secret: str


class WebhookDispatcher(PeriodicTask):
    name = "tdg-webhooks"

    def __init__(self, settings: Settings, engine: Engine) -> None:
        super().__init__()
        self.settings = settings
        self.engine = engine

    def interval(self) -> float:
        return self.settings.webhook_poll_seconds

    async def tick(self) -> None:
        await asyncio.to_thread(self.fan_out)
        claimed = await asyncio.to_thread(self.claim_due)
        if claimed:
            await asyncio.gather(*(self._deliver(job) for job in claimed))

    # -- outbox -> deliveries ----------------------------------------------------------------

    def fan_out(self) -> None:
        now = utcnow()
        with Session(self.engine) as session:
            queue = DeliveryQueue(session)
            for event in queue.unfanned_events(BATCH * 4):
                if not queue.mark_fanned_out(event.id, now) or event.tenant_id is None:
                    continue
                body = orjson.dumps(
                    {
                        "id": event.id,
                        "type": event.type,
                        "created_at": iso(event.created_at),
                        "tenant_id": event.tenant_id,
                        "data": event.data,
                    }
                ).decode()
                if not queue.actor_forwards(event):
                    continue
                for integration in queue.active_webhooks(event.tenant_id):
                    if event.type in integration.events:
                        session.add(
                            WebhookDelivery(
                                integration_id=stored_id(integration),
                                tenant_id=event.tenant_id,
                                webhook_id=event.id,
                                event_type=event.type,
                                body=body,
                                next_attempt_at=now,
                            )
                        )
            session.commit()

    # -- sending -----------------------------------------------------------------------------

    def claim_due(self) -> list[_Claimed]:
        now = utcnow()
        lease = timedelta(seconds=self.settings.webhook_timeout_seconds + 30)
        claimed: list[_Claimed] = []
        with Session(self.engine) as session:
            queue = DeliveryQueue(session)
            for delivery in queue.due(now, BATCH):
                assert delivery.id is not None
                if not queue.claim(delivery.id, delivery.attempts, now, lease):
                    continue
                integration = queue.integration(delivery.integration_id)
                if integration is None or not integration.is_active:
                    queue.record_outcome(
                        delivery.id,
                        delivery.attempts,
                        status=DeliveryStatus.failed.value,
                        lease_until=None,
                        finished_at=now,
                        last_error="The integration is disabled; the event was not sent.",
                    )
                    continue
                claimed.append(
                    _Claimed(
                        delivery.id,
                        delivery.integration_id,
                        delivery.attempts,
                        delivery.webhook_id,
                        delivery.body.encode(),
                        integration.config["url"],
                        unseal_json(self.settings.signing_key(), integration.secrets_enc)["signing_secret"],
                    )
                )
            session.commit()
        return claimed

    async def _deliver(self, job: _Claimed) -> None:
        now = utcnow()
        # signed afresh per attempt: the timestamp is the attempt's, the id and body never change
        headers = signing.headers(job.secret, job.webhook_id, int(now.timestamp()), job.body)
        result = await sender.post(
            job.url,
            headers,
            job.body,
            timeout=self.settings.webhook_timeout_seconds,
            allow_private=self.settings.webhook_allow_private,
        )
        await asyncio.to_thread(self._record, job, result, now)

    def _record(self, job: _Claimed, result: sender.SendResult, at: datetime) -> None:
        now = utcnow()
        attempt = job.attempts + 1
        schedule = self.settings.webhook_retry_schedule
        values: dict[str, object] = {
            "attempts": attempt,
            "lease_until": None,
            "last_status_code": result.status_code,
            "last_error": result.error,
        }
        final_failure = False
        if result.ok:
            values.update(status=DeliveryStatus.succeeded.value, finished_at=now, next_attempt_at=None)
        elif attempt <= len(schedule):
            values.update(next_attempt_at=now + timedelta(seconds=schedule[attempt - 1]))
        else:
            values.update(status=DeliveryStatus.failed.value, finished_at=now, next_attempt_at=None)
            final_failure = True
        with Session(self.engine) as session:
            queue = DeliveryQueue(session)
            if not queue.record_outcome(job.delivery_id, job.attempts, **values):
                session.rollback()  # the lease lapsed and another dispatcher took over
                return
            session.add(
                DeliveryAttempt(
                    delivery_id=job.delivery_id,
                    attempt=attempt,
                    at=at,
                    status_code=result.status_code,
                    error=result.error,
                    response_body=result.response_body,
                    duration_ms=result.duration_ms,
                )
            )
            if result.ok:
                queue.reset_failures(job.integration_id)
            elif final_failure:
                failed_events = queue.count_failed_event(job.integration_id)
                if failed_events >= self.settings.webhook_max_failed_events and queue.disable(
                    job.integration_id,
                    f"Disabled after {failed_events} consecutive events could not be delivered.",
                    now,
                ):
                    log.warning(
                        "integration %s disabled after %s failed events", job.integration_id, failed_events
                    )
            session.commit()
