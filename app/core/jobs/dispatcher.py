"""The dispatcher loop in `tdg serve`: starts queued datasets within each tenant's concurrency
cap (cutting each into shards, more of them when workers would idle), hands queued shards to
the executor as it has room, asks running shards to split when workers idle with nothing
queued, and re-queues shards whose lease lapsed (their worker is gone) until the attempt limit,
after which their dataset fails with a reason. A pass that meets the database unreachable fails
whole and the next one tries again; after such a pass lapsed leases are left a lease's time, since
the workers could not renew them meanwhile."""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from datetime import timedelta

from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.core.datasets.models import DatasetStatus
from app.core.jobs.db_retry import transient
from app.core.jobs.executors import CeleryExecutor, LocalPoolExecutor
from app.core.jobs.outcomes import record_outcome
from app.core.jobs.periodic import PeriodicTask
from app.core.jobs.sharding import shard_ranges
from app.core.models import utcnow
from app.core.repositories.jobs import JobRepository, fenced_dataset_finish, lock_dataset
from app.core.settings import Settings
from app.core.storage import store_for

log = logging.getLogger("tdg.dispatcher")
CLAIM_GRACE_SECONDS = 60.0
SPLIT_POLL_SECONDS = 0.2


class Dispatcher(PeriodicTask):
    name = "tdg-dispatcher"

    def __init__(
        self, settings: Settings, engine: Engine, executor: LocalPoolExecutor | CeleryExecutor
    ) -> None:
        super().__init__()
        self.settings = settings
        self.engine = engine
        self.executor = executor
        self.owner = f"dispatcher:{socket.gethostname()}"
        self.splits_pending = False
        self.reap_after = 0.0  # monotonic time before which lapsed leases are left alone
        if isinstance(executor, LocalPoolExecutor):
            executor.on_slot_free = self.wake_threadsafe

    def interval(self) -> float:
        # a split asked for queues its half within a progress update: pick it up soon
        if self.splits_pending:
            return min(self.settings.dispatch_interval_seconds, SPLIT_POLL_SECONDS)
        return self.settings.dispatch_interval_seconds

    async def tick(self) -> None:
        try:
            await asyncio.to_thread(self.run_once)
        except Exception as exc:
            if transient(exc):
                # the workers could not renew their leases either: once the database is back, give
                # them a lease's time to do so before taking a lapsed lease for a dead worker
                self.reap_after = time.monotonic() + self.settings.job_lease_seconds
            raise

    def run_once(self) -> None:
        self.reap()
        self.start_datasets()
        self.dispatch()

    def reap(self) -> None:
        if time.monotonic() < self.reap_after:
            return
        now = utcnow()
        with Session(self.engine) as session:
            repo = JobRepository(session)
            for dataset in repo.running_without_shards():
                assert dataset.id is not None
                if repo.requeue_dataset(dataset.id):
                    log.warning("dataset %s: running without work rows (an older run), re-queued", dataset.id)
            failed: list[int] = []
            for shard in repo.lapsed_shards(now):
                assert shard.id is not None
                lock_dataset(session.connection(), shard.dataset_id)
                if shard.attempt < self.settings.job_max_attempts:
                    if repo.requeue_shard(shard.id, shard.attempt):
                        log.warning(
                            "dataset %s shard %s: lease lapsed (worker gone), re-queued",
                            shard.dataset_id,
                            shard.shard_index,
                        )
                    continue
                failing = repo.dataset(shard.dataset_id)
                error = (
                    f"Generation did not finish after {shard.attempt} attempts; its workers stopped "
                    "responding."
                )
                if failing is not None and fenced_dataset_finish(
                    session.connection(),
                    shard.dataset_id,
                    status=DatasetStatus.failed.value,
                    error=error,
                    finished_at=now,
                    lease_until=None,
                    records_generated=0,
                ):
                    # a failure like any other: the event, the creator's notification, no files left
                    record_outcome(
                        session, failing, DatasetStatus.failed, error=error, finished_at=now, files=[]
                    )
                    repo.drop_shards(shard.dataset_id)
                    failed.append(shard.dataset_id)
                    log.warning("dataset %s failed after %s attempts", shard.dataset_id, shard.attempt)
            # partial files go before the failure is visible: a client that sees `failed` finds nothing
            for dataset_id in failed:
                store_for(self.settings).remove(f"datasets/{dataset_id}")
            session.commit()

    def start_datasets(self) -> None:
        """queued -> running within each tenant's cap; each dataset's shards wait for a slot."""
        with Session(self.engine) as session:
            repo = JobRepository(session)
            candidates = repo.startable(limit=100)
            if not candidates:
                return
            running = repo.running_per_tenant()
            caps = repo.tenant_caps()
            idle = self.settings.workers - repo.busy_shards()
            for dataset in candidates:
                assert dataset.id is not None
                if running.get(dataset.tenant_id, 0) >= caps.get(dataset.tenant_id, 4):
                    continue
                ranges = shard_ranges(
                    dataset.record_count,
                    self.settings.shard_records,
                    self.settings.max_shards,
                    idle=idle,
                    split_records=self.settings.split_records,
                )
                if repo.start(dataset.id, self.owner, ranges):
                    running[dataset.tenant_id] = running.get(dataset.tenant_id, 0) + 1
                    idle -= len(ranges)
            session.commit()

    def dispatch(self) -> None:
        slots = self.executor.free_slots()
        if slots <= 0:
            self.splits_pending = False  # no worker idles: nothing to split for
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
            claimed: list[tuple[int, int]] = []
            for shard in repo.queued_shards(limit=min(slots, 1000)):
                assert shard.id is not None
                if repo.claim_shard(shard.id, shard.attempt, utcnow(), lease, self.owner):
                    claimed.append((shard.id, shard.attempt))
            session.commit()
        for shard_id, attempt in claimed:
            self.executor.submit(shard_id, attempt)
        self.ask_splits()

    def ask_splits(self) -> None:
        """With nothing queued and workers idle, ask the running shards with the most left to
        give half of it away (each worker cuts its own range at its next progress update)."""
        split = self.settings.split_records
        self.splits_pending = False
        with Session(self.engine) as session:
            repo = JobRepository(session)
            idle = self.settings.workers - repo.busy_shards()
            if idle <= 0:
                return
            for shard, left in repo.split_candidates(len(self.settings.default_types)):
                if idle <= 0 or left < 2 * split:
                    break
                if shard.split_wanted:
                    idle -= 1  # asked already; its half will come
                    self.splits_pending = True
                    continue
                assert shard.id is not None
                lock_dataset(session.connection(), shard.dataset_id)
                if repo.ask_split(shard.id, shard.attempt):
                    idle -= 1
                    self.splits_pending = True
                session.commit()  # one dataset's lock at a time
