"""The retention purge: a periodic task in `tdg serve` that removes the files of completed
datasets older than their tenant's `retention_days`. The dataset row stays, with status
`expired` and an `error` saying why, so clients see what happened instead of a 404.

It also sweeps what interrupted work left on disk: shard parts of datasets no longer running (a
worker killed between the completing commit and its clean-up, or one that lost its fence while
its dataset was being deleted) and folders of datasets that no longer exist; and it deletes the
webhook delivery log and the fanned-out domain events older than `history_retention_days`."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.core.datasets.models import DatasetStatus
from app.core.jobs.periodic import PeriodicTask
from app.core.models import utcnow
from app.core.repositories.retention import RetentionRepository
from app.core.settings import Settings
from app.core.storage import store_for

log = logging.getLogger("tdg.retention")
BATCH = 200


class RetentionPurger(PeriodicTask):
    name = "tdg-retention"

    def __init__(self, settings: Settings, engine: Engine) -> None:
        super().__init__()
        self.settings = settings
        self.engine = engine

    def interval(self) -> float:
        return self.settings.retention_interval_seconds

    async def tick(self) -> None:
        await asyncio.to_thread(self.purge)
        await asyncio.to_thread(self.sweep)
        await asyncio.to_thread(self.prune_history)

    def purge(self) -> list[int]:
        """Expire every dataset past its tenant's retention; returns their ids."""
        now = utcnow()
        purged: list[int] = []
        with Session(self.engine) as session:
            repo = RetentionRepository(session)
            for tenant in repo.tenants_with_retention():
                assert tenant.id is not None and tenant.retention_days is not None
                cutoff = now - timedelta(days=tenant.retention_days)
                reason = (
                    f"The files were removed after the tenant's retention period of {tenant.retention_days} "
                    "days."
                )
                for dataset in repo.expired_datasets(tenant.id, cutoff, BATCH):
                    assert dataset.id is not None
                    if repo.expire(dataset.id, reason):
                        purged.append(dataset.id)
            session.commit()
        # files go only after the rows say so: a download never finds a row without its file
        for dataset_id in purged:
            store_for(self.settings).remove(f"datasets/{dataset_id}")
        if purged:
            log.info("retention: expired %d datasets", len(purged))
        return purged

    def prune_history(self) -> tuple[int, int]:
        """Old delivery log and outbox rows; returns (events, deliveries) deleted."""
        cutoff = utcnow() - timedelta(days=self.settings.history_retention_days)
        with Session(self.engine) as session:
            events, deliveries = RetentionRepository(session).prune_history(cutoff)
            session.commit()
        if events or deliveries:
            log.info(
                "retention: deleted %d domain events and %d webhook deliveries older than %d days",
                events,
                deliveries,
                self.settings.history_retention_days,
            )
        return events, deliveries

    def sweep(self) -> int:
        """Remove leftover shard work folders and folders of deleted datasets; returns how many."""
        store = store_for(self.settings)
        folders = store.dataset_folders()
        with Session(self.engine) as session:
            statuses = RetentionRepository(session).statuses(folders)
        removed = 0
        for dataset_id in folders:
            status = statuses.get(dataset_id)
            if status is None:
                store.remove(f"datasets/{dataset_id}")
                removed += 1
            elif status != DatasetStatus.running.value and store.has(f"datasets/{dataset_id}/work"):
                store.remove(f"datasets/{dataset_id}/work")
                removed += 1
        if removed:
            log.info("retention: removed %d leftover dataset folders", removed)
        return removed
