"""System-side queries of the job machinery (dispatcher, reaper, workers). Not principal-scoped:
these act for datasets that were authorised when they were created.

A running dataset's work is a set of DatasetShard rows: generate shards (a record range each) and
one assemble shard that waits until they are all done. Every worker write is fenced by the
shard's `attempt` AND by its dataset still running, so a worker that lost its lease, or whose
dataset was cancelled or failed, can never overwrite anything."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import case, delete, exists, func, insert, or_, update
from sqlalchemy.engine import Connection
from sqlmodel import Session, col, select

from app.core.datasets.models import Dataset, DatasetFile, DatasetShard, DatasetStatus, ShardKind, ShardStatus
from app.core.library.models import SchemaDoc
from app.core.tenants.models import Tenant

RUNNING = DatasetStatus.running.value
QUEUED = DatasetStatus.queued.value
_dataset_running = (
    select(Dataset.id).where(col(Dataset.id) == DatasetShard.dataset_id, Dataset.status == RUNNING).exists()
)


@dataclass(frozen=True, slots=True)
class TakenOver:
    attempt: int  # the fence of every write of the new owner
    outputs: list[dict[str, Any]]  # the parts earlier attempts recorded, in record order


class JobRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    # -- dispatcher: datasets --------------------------------------------------------------

    def startable(self, limit: int) -> list[Dataset]:
        stmt = (
            select(Dataset)
            .where(Dataset.status == QUEUED, col(Dataset.startable).is_(True))
            .order_by(col(Dataset.id))
            .limit(limit)
        )
        return list(self.session.exec(stmt).all())

    def running_per_tenant(self) -> dict[int, int]:
        stmt = (
            select(Dataset.tenant_id, func.count())
            .where(Dataset.status == RUNNING)
            .group_by(col(Dataset.tenant_id))
        )
        return {tid: int(n) for tid, n in self.session.exec(stmt).all()}

    def tenant_caps(self) -> dict[int, int]:
        return {t.id: t.max_concurrent_generations for t in self.session.exec(select(Tenant)).all() if t.id}

    def start(self, dataset_id: int, owner: str, ranges: Sequence[tuple[int, int]]) -> bool:
        """queued -> running, with one queued generate shard per range and a waiting assembly."""
        result = self.session.exec(
            update(Dataset)
            .where(
                col(Dataset.id) == dataset_id, col(Dataset.status) == QUEUED, col(Dataset.startable).is_(True)
            )
            .values(
                status=RUNNING,
                locked_by=owner,
                lease_until=None,
                error=None,
                shard_count=len(ranges),
                shards_done=0,
                progress=0.0,
                records_generated=0,
            )
        )
        if result.rowcount != 1:
            return False
        # leftovers of an earlier run (a dataset re-queued from before shards existed)
        self.session.exec(delete(DatasetShard).where(col(DatasetShard.dataset_id) == dataset_id))
        for index, (start, stop) in enumerate(ranges):
            self.session.add(
                DatasetShard(
                    dataset_id=dataset_id,
                    shard_index=index,
                    kind=ShardKind.generate.value,
                    start=start,
                    stop=stop,
                    status=ShardStatus.queued.value,
                )
            )
        self.session.add(
            DatasetShard(
                dataset_id=dataset_id,
                shard_index=len(ranges),
                kind=ShardKind.assemble.value,
                status=ShardStatus.waiting.value,
            )
        )
        return True

    def running_without_shards(self) -> list[Dataset]:
        """Running datasets with no work rows: runs started before shards existed."""
        has_shards = exists().where(col(DatasetShard.dataset_id) == Dataset.id)
        stmt = select(Dataset).where(Dataset.status == RUNNING, ~has_shards)
        return list(self.session.exec(stmt).all())

    def requeue_dataset(self, dataset_id: int) -> bool:
        result = self.session.exec(
            update(Dataset)
            .where(col(Dataset.id) == dataset_id, col(Dataset.status) == RUNNING)
            .values(status=QUEUED, locked_by=None, lease_until=None, progress=0.0, records_generated=0)
        )
        return result.rowcount == 1

    # -- dispatcher: shards ----------------------------------------------------------------

    def queued_shards(self, limit: int) -> list[DatasetShard]:
        stmt = (
            select(DatasetShard)
            .where(DatasetShard.status == ShardStatus.queued.value, _dataset_running)
            .order_by(col(DatasetShard.dataset_id), col(DatasetShard.shard_index))
            .limit(limit)
        )
        return list(self.session.exec(stmt).all())

    def claim_shard(self, shard_id: int, attempt: int, now: datetime, lease: timedelta, owner: str) -> bool:
        """queued -> running for the dispatcher (or the worker that finished the last shard)."""
        result = self.session.exec(
            update(DatasetShard)
            .where(
                col(DatasetShard.id) == shard_id,
                col(DatasetShard.attempt) == attempt,
                col(DatasetShard.status).in_([ShardStatus.queued.value, ShardStatus.waiting.value]),
            )
            .values(status=ShardStatus.running.value, lease_until=now + lease, locked_by=owner)
        )
        return result.rowcount == 1

    def lapsed_shards(self, now: datetime) -> list[DatasetShard]:
        stmt = select(DatasetShard).where(
            DatasetShard.status == ShardStatus.running.value,
            _dataset_running,
            or_(col(DatasetShard.lease_until).is_(None), col(DatasetShard.lease_until) < now),
        )
        return list(self.session.exec(stmt).all())

    def requeue_shard(self, shard_id: int, attempt: int) -> bool:
        result = self.session.exec(
            update(DatasetShard)
            .where(
                col(DatasetShard.id) == shard_id,
                col(DatasetShard.attempt) == attempt,
                col(DatasetShard.status) == ShardStatus.running.value,
            )
            .values(
                status=ShardStatus.queued.value,
                locked_by=None,
                lease_until=None,
                records_done=0,
                split_wanted=False,
            )
        )
        return result.rowcount == 1

    def busy_shards(self) -> int:
        """Shards of running datasets that hold a worker or wait for one."""
        stmt = (
            select(func.count())
            .select_from(DatasetShard)
            .where(
                col(DatasetShard.status).in_([ShardStatus.queued.value, ShardStatus.running.value]),
                _dataset_running,
            )
        )
        return int(self.session.exec(stmt).one())

    def split_candidates(self, default_types: int) -> list[tuple[DatasetShard, int]]:
        """Running generate shards with the records each has left (from its last progress
        update), most first; `split_wanted` ones count as already asked."""
        stmt = (
            select(DatasetShard, Dataset.types)
            .join(Dataset, col(Dataset.id) == DatasetShard.dataset_id)
            .where(
                DatasetShard.status == ShardStatus.running.value,
                Dataset.status == RUNNING,
                DatasetShard.kind == ShardKind.generate.value,
            )
        )
        out = []
        for shard, types in self.session.exec(stmt).all():
            formats = max(1, len(types) if types else default_types)
            out.append((shard, shard.stop - shard.start - shard.records_done // formats))
        return sorted(out, key=lambda pair: -pair[1])

    def ask_split(self, shard_id: int, attempt: int) -> bool:
        result = self.session.exec(
            update(DatasetShard)
            .where(
                col(DatasetShard.id) == shard_id,
                col(DatasetShard.attempt) == attempt,
                col(DatasetShard.status) == ShardStatus.running.value,
            )
            .values(split_wanted=True)
        )
        return result.rowcount == 1

    def drop_shards(self, dataset_id: int) -> None:
        """A finished run's work rows (in the transaction that finishes it)."""
        self.session.exec(delete(DatasetShard).where(col(DatasetShard.dataset_id) == dataset_id))

    # -- worker ----------------------------------------------------------------------------

    def shard(self, shard_id: int) -> DatasetShard | None:
        return self.session.get(DatasetShard, shard_id)

    def shards_of(self, dataset_id: int) -> list[DatasetShard]:
        stmt = (
            select(DatasetShard)
            .where(DatasetShard.dataset_id == dataset_id)
            .order_by(col(DatasetShard.shard_index))
        )
        return list(self.session.exec(stmt).all())

    def take_over(self, shard: DatasetShard, owner: str, now: datetime, lease: timedelta) -> TakenOver | None:
        """Become the one worker of a claimed shard: the new attempt (the fence) and the parts
        earlier attempts recorded (read under the dataset lock, after which no earlier attempt
        can record another), from whose end the new attempt resumes."""
        attempt = shard.attempt + 1
        lock_dataset(self.session.connection(), shard.dataset_id)
        recorded = self.session.exec(
            select(DatasetShard.outputs).where(
                col(DatasetShard.id) == shard.id, col(DatasetShard.attempt) == shard.attempt
            )
        ).first()
        outputs = list(recorded or [])
        result = self.session.exec(
            update(DatasetShard)
            .where(
                col(DatasetShard.id) == shard.id,
                col(DatasetShard.attempt) == shard.attempt,
                col(DatasetShard.status) == ShardStatus.running.value,
                _dataset_running,
            )
            .values(
                attempt=attempt,
                locked_by=owner,
                lease_until=now + lease,
                records_done=sum(int(o["records"]) for o in outputs),
            )
        )
        if result.rowcount != 1:
            return None
        self.session.exec(
            update(Dataset)
            .where(col(Dataset.id) == shard.dataset_id)
            .values(
                started_at=func.coalesce(Dataset.started_at, now),
                locked_by=owner,
                attempt=case((col(Dataset.attempt) < attempt, attempt), else_=Dataset.attempt),
            )
        )
        return TakenOver(attempt, outputs)

    def finish_shard(
        self, shard_id: int, attempt: int, dataset_id: int, outputs: list[dict[str, Any]], records_done: int
    ) -> tuple[int, int] | None:
        """Record a generate shard's outputs; returns how many shards of the dataset are now done
        and how many it has (None: fenced). The count is an increment of the dataset row, so of
        two shards finishing at once exactly one sees the total (the row lock orders them; a
        split, which adds a shard, takes the same lock)."""
        conn = self.session.connection()
        lock_dataset(conn, dataset_id)
        if not fenced_shard_update(
            conn,
            shard_id,
            attempt,
            status=ShardStatus.done.value,
            lease_until=None,
            outputs=outputs,
            records_done=records_done,
        ):
            return None
        result = conn.execute(
            update(Dataset)
            .where(col(Dataset.id) == dataset_id, col(Dataset.status) == RUNNING)
            .values(shards_done=Dataset.shards_done + 1)
        )
        if result.rowcount != 1:
            return None
        done, count = self.session.exec(
            select(Dataset.shards_done, Dataset.shard_count).where(col(Dataset.id) == dataset_id)
        ).one()
        return int(done), int(count)

    def assembly_of(self, dataset_id: int) -> DatasetShard | None:
        stmt = select(DatasetShard).where(
            DatasetShard.dataset_id == dataset_id, DatasetShard.kind == ShardKind.assemble.value
        )
        return self.session.exec(stmt).first()

    def dataset(self, dataset_id: int) -> Dataset | None:
        return self.session.get(Dataset, dataset_id)

    def schema(self, schema_id: int) -> SchemaDoc | None:
        return self.session.get(SchemaDoc, schema_id)

    def files(self, dataset_id: int) -> list[DatasetFile]:
        stmt = (
            select(DatasetFile)
            .where(DatasetFile.dataset_id == dataset_id)
            .order_by(col(DatasetFile.format), col(DatasetFile.file_index))
        )
        return list(self.session.exec(stmt).all())


def lock_dataset(conn: Connection, dataset_id: int) -> None:
    """Take the dataset row's lock before any shard row. Every transaction that writes a dataset
    and its shards does this first (a cancel's UPDATE of the dataset does too), so no two of them
    wait on each other in opposite order: PostgreSQL aborted a cancel as a deadlock against a
    worker's progress update (shard, then dataset). A no-op on SQLite, which serialises writers."""
    conn.execute(select(Dataset.id).where(col(Dataset.id) == dataset_id).with_for_update())


def fenced_shard_update(conn: Connection, shard_id: int, attempt: int, **values: object) -> bool:
    """Update the shard only while this worker still holds it and its dataset still runs."""
    result = conn.execute(
        update(DatasetShard)
        .where(
            col(DatasetShard.id) == shard_id,
            col(DatasetShard.attempt) == attempt,
            col(DatasetShard.status) == ShardStatus.running.value,
            _dataset_running,
        )
        .values(**values)
    )
    return result.rowcount == 1


def record_parts(
    conn: Connection, shard_id: int, attempt: int, outputs: list[dict[str, Any]], records_done: int
) -> bool:
    """A checkpoint of a running shard: `outputs` (every part it has finished, earlier attempts'
    included) replaces the recorded list, fenced; a successor resumes after the last of them."""
    return fenced_shard_update(conn, shard_id, attempt, outputs=outputs, records_done=records_done)


def shard_stop(conn: Connection, shard_id: int) -> int:
    """Where a shard's range ends now (a split lowers it)."""
    return int(conn.execute(select(DatasetShard.stop).where(col(DatasetShard.id) == shard_id)).scalar_one())


def split_wanted(conn: Connection, shard_id: int) -> bool:
    return bool(
        conn.execute(select(DatasetShard.split_wanted).where(col(DatasetShard.id) == shard_id)).scalar()
    )


def split_shard(conn: Connection, shard: DatasetShard, attempt: int, mid: int, stop: int) -> bool:
    """The worker of a running shard keeps [start, mid) and queues [mid, stop) as a new shard of
    its dataset (fenced like every worker write; the caller holds the dataset lock)."""
    result = conn.execute(
        update(DatasetShard)
        .where(
            col(DatasetShard.id) == shard.id,
            col(DatasetShard.attempt) == attempt,
            col(DatasetShard.stop) == stop,
            col(DatasetShard.status) == ShardStatus.running.value,
            _dataset_running,
        )
        .values(stop=mid, split_wanted=False)
    )
    if result.rowcount != 1:
        return False
    index = conn.execute(
        select(func.max(DatasetShard.shard_index)).where(DatasetShard.dataset_id == shard.dataset_id)
    ).scalar_one()
    conn.execute(
        insert(DatasetShard).values(
            dataset_id=shard.dataset_id,
            shard_index=int(index) + 1,
            kind=ShardKind.generate.value,
            start=mid,
            stop=stop,
            status=ShardStatus.queued.value,
            attempt=0,
            records_done=0,
            outputs=[],
            split_wanted=False,
        )
    )
    conn.execute(
        update(Dataset).where(col(Dataset.id) == shard.dataset_id).values(shard_count=Dataset.shard_count + 1)
    )
    return True


def record_progress(conn: Connection, dataset_id: int, record_count: int, formats: int) -> None:
    """The dataset's progress from its shards' counters; never moves backwards (a re-queued
    shard restarts from its last recorded part, and two shards' updates may commit in either
    order)."""
    done = conn.execute(
        select(func.coalesce(func.sum(DatasetShard.records_done), 0)).where(
            DatasetShard.dataset_id == dataset_id
        )
    ).scalar_one()
    total = max(1, record_count * formats)
    progress = min(0.99, int(done) / total)
    records = min(record_count, int(done) // max(1, formats))
    conn.execute(
        update(Dataset)
        .where(col(Dataset.id) == dataset_id, col(Dataset.status) == RUNNING)
        .values(
            progress=case((col(Dataset.progress) < progress, progress), else_=Dataset.progress),
            records_generated=case(
                (col(Dataset.records_generated) < records, records), else_=Dataset.records_generated
            ),
        )
    )


def fenced_dataset_finish(conn: Connection, dataset_id: int, **values: object) -> bool:
    """A running dataset's final state (completed or failed); False when it is no longer running."""
    result = conn.execute(
        update(Dataset).where(col(Dataset.id) == dataset_id, col(Dataset.status) == RUNNING).values(**values)
    )
    return result.rowcount == 1
