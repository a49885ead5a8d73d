"""The dispatcher loop in `tdg serve`: starts queued datasets within each tenant's concurrency
cap and the executor's capacity, and re-queues running datasets whose lease lapsed (their
worker is gone) until the attempt limit, after which they fail with a reason."""

from __future__ import annotations

import asyncio
import logging
import socket
from datetime import timedelta

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.core.jobs.executors import CeleryExecutor, LocalPoolExecutor
from app.core.jobs.files import dataset_dir, remove_tree
from app.core.jobs.periodic import PeriodicTask
from app.core.jobs.worker_run import record_outcome
from app.core.models import DatasetStatus, utcnow
from app.core.repositories.jobs import JobRepository, fenced_update
from app.core.settings import Settings

log = logging.getLogger("tdg.dispatcher")
CLAIM_GRACE_SECONDS = 60.0


class Dispatcher(PeriodicTask):
    name = "tdg-dispatcher"

    def __init__(self, settings: Settings, engine: Engine, executor: LocalPoolExecutor | CeleryExecutor) -> None:
        super().__init__()
        self.settings = settings
        self.engine = engine
        self.executor = executor
        self.owner = f"dispatcher:{socket.gethostname()}"

    def interval(self) -> float:
        return self.settings.dispatch_interval_seconds

    async def tick(self) -> None:
        await asyncio.to_thread(self.run_once)

    def run_once(self) -> None:
        self.reap()
        self.dispatch()

    def reap(self) -> None:
        now = utcnow()
        with Session(self.engine) as session:
            repo = JobRepository(session)
            failed: list[int] = []
            for dataset in repo.lapsed(now):
                assert dataset.id is not None
                if dataset.attempt >= self.settings.job_max_attempts:
                    error = (f"Generation did not finish after {dataset.attempt} attempts; its workers stopped "
                             "responding.")
                    if fenced_update(session.connection(), dataset.id, dataset.attempt,
                                     status=DatasetStatus.failed.value, error=error, finished_at=now,
                                     lease_until=None, progress=0.0, records_generated=0):
                        # a failure like any other: the event, the creator's notification, no files left
                        record_outcome(session, dataset, DatasetStatus.failed, error=error, finished_at=now, files=[])
                        failed.append(dataset.id)
                    log.warning("dataset %s failed after %s attempts", dataset.id, dataset.attempt)
                elif repo.requeue(dataset.id, dataset.attempt):
                    log.warning("dataset %s: lease lapsed (worker gone), re-queued", dataset.id)
            # partial files go before the failure is visible: a client that sees `failed` finds nothing
            for dataset_id in failed:
                remove_tree(dataset_dir(self.settings.data_dir, dataset_id))
            session.commit()

    def dispatch(self) -> None:
        slots = self.executor.free_slots()
        if slots <= 0:
            return
        lease = timedelta(seconds=self.settings.job_lease_seconds)
        if isinstance(self.executor, CeleryExecutor):
            # a task may wait in the broker for a free worker; it renews the lease once it runs
            lease *= 20
        else:
            # until the worker takes over, the claim must outlast a cold spawn of a pool process
            # (imports alone take seconds on a busy machine): with a short job lease the reaper
            # re-queued the claim before take-over, over and over, and piled up pool submissions
            lease = max(lease, timedelta(seconds=CLAIM_GRACE_SECONDS))
        with Session(self.engine) as session:
            repo = JobRepository(session)
            candidates = repo.startable(limit=100)
            if not candidates:
                return
            running = repo.running_per_tenant()
            caps = repo.tenant_caps()
            claimed: list[tuple[int, int]] = []
            for dataset in candidates:
                if len(claimed) >= slots:
                    break
                assert dataset.id is not None
                if running.get(dataset.tenant_id, 0) >= caps.get(dataset.tenant_id, 4):
                    continue
                attempt = repo.claim(dataset.id, utcnow(), lease, self.owner)
                if attempt is not None:
                    running[dataset.tenant_id] = running.get(dataset.tenant_id, 0) + 1
                    claimed.append((dataset.id, attempt))
            session.commit()
        for dataset_id, attempt in claimed:
            self.executor.submit(dataset_id, attempt)
