"""The delivery log and the event outbox do not grow forever: deliveries that ended and events
already fanned out are deleted once older than `history_retention_days`; pending ones stay."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import text

from app.core.database import make_sync_engine
from app.core.jobs.retention import RetentionPurger
from app.core.models import utcnow
from app.core.settings import Settings
from tests.api_client import Api
from tests.integrations.flow import create_webhook, deliveries, settled, wait_for_deliveries
from tests.integrations.receiver import Receiver


async def test_old_deliveries_and_events_are_pruned(api: Api, settings: Settings) -> None:
    receiver = Receiver()
    try:
        _, admin = await api.create_tenant()
        hook = await create_webhook(api, admin, receiver.url, events=["project.created"])
        for name in ("old-1", "old-2", "recent"):
            await api.create_project(admin, name)
        rows = await wait_for_deliveries(api, admin, hook["integration_id"], settled(3))
    finally:
        receiver.close()
    by_name = {r["payload"]["data"]["name"]: r for r in rows}
    old = [by_name["old-1"]["delivery_id"], by_name["old-2"]["delivery_id"]]
    recent = by_name["recent"]["delivery_id"]

    engine = make_sync_engine(settings.database_url)
    try:
        long_ago = utcnow() - timedelta(days=settings.history_retention_days + 1)
        with engine.begin() as conn:
            for delivery_id in old:
                conn.execute(text("UPDATE webhook_delivery SET finished_at = :at, created_at = :at WHERE id = :id"),
                             {"at": long_ago, "id": delivery_id})
            # a delivery still pending keeps its row however old it is
            conn.execute(text("UPDATE webhook_delivery SET status = 'pending', next_attempt_at = :later, "
                              "finished_at = :at WHERE id = :id"),
                         {"at": long_ago, "later": utcnow() + timedelta(days=1), "id": recent})
            conn.execute(text("UPDATE domain_event SET fanned_out_at = :at WHERE type = 'project.created' "
                              "AND tenant_id = :tenant"), {"at": long_ago, "tenant": admin.tenant_id})
            events_before = conn.execute(text("SELECT count(*) FROM domain_event")).scalar_one()

        events, deleted = RetentionPurger(settings, engine).prune_history()

        assert (events, deleted) == (3, 2)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM domain_event")).scalar_one() == events_before - 3
            attempts = conn.execute(text("SELECT delivery_id FROM delivery_attempt")).scalars().all()
        assert not set(attempts) & set(old)  # attempts go with their delivery
        assert recent in attempts
        assert RetentionPurger(settings, engine).prune_history() == (0, 0)
    finally:
        engine.dispose()
    left = await deliveries(api, admin, hook["integration_id"])
    assert [r["delivery_id"] for r in left] == [recent]
