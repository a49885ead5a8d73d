"""System-side queries of the job machinery (dispatcher, reaper, workers). Not principal-scoped:
these act for datasets that were authorised when they were created. Every worker write is
fenced by `attempt` so a worker that lost its lease can never overwrite its successor."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, or_, update
from sqlalchemy.engine import Connection
from sqlmodel import Session, col, select

from app.core.models import Dataset, DatasetFile, DatasetStatus, SchemaDoc, Tenant

RUNNING = DatasetStatus.running.value
QUEUED = DatasetStatus.queued.value


class JobRepository:
    def __init__(self, session: Session) -> None:
        self.session = session

    # -- dispatcher ------------------------------------------------------------------------

    def startable(self, limit: int) -> list[Dataset]:
        stmt = (select(Dataset).where(Dataset.status == QUEUED, col(Dataset.startable).is_(True))
                .order_by(col(Dataset.id)).limit(limit))
        return list(self.session.exec(stmt).all())

    def running_per_tenant(self) -> dict[int, int]:
        stmt = select(Dataset.tenant_id, func.count()).where(Dataset.status == RUNNING).group_by(Dataset.tenant_id)
        return {tid: int(n) for tid, n in self.session.exec(stmt).all()}

    def tenant_caps(self) -> dict[int, int]:
        return {t.id: t.max_concurrent_generations for t in self.session.exec(select(Tenant)).all() if t.id}

    def claim(self, dataset_id: int, now: datetime, lease: timedelta, owner: str) -> int | None:
        """queued -> running for the dispatcher; returns the attempt the worker must take over."""
        result = self.session.exec(  # type: ignore[call-overload]
            update(Dataset)
            .where(col(Dataset.id) == dataset_id, Dataset.status == QUEUED, col(Dataset.startable).is_(True))
            .values(status=RUNNING, lease_until=now + lease, locked_by=owner, error=None)
        )
        if result.rowcount != 1:
            return None
        return self.session.exec(select(Dataset.attempt).where(col(Dataset.id) == dataset_id)).one()

    def lapsed(self, now: datetime) -> list[Dataset]:
        stmt = select(Dataset).where(Dataset.status == RUNNING, or_(
            col(Dataset.lease_until).is_(None), col(Dataset.lease_until) < now))
        return list(self.session.exec(stmt).all())

    def requeue(self, dataset_id: int, attempt: int) -> bool:
        result = self.session.exec(  # type: ignore[call-overload]
            update(Dataset).where(col(Dataset.id) == dataset_id, Dataset.status == RUNNING,
                                  Dataset.attempt == attempt)
            .values(status=QUEUED, locked_by=None, lease_until=None, progress=0.0, records_generated=0)
        )
        return result.rowcount == 1

    # -- worker ----------------------------------------------------------------------------

    def take_over(self, dataset_id: int, attempt: int, owner: str, now: datetime, lease: timedelta) -> int | None:
        """Become the one worker of a running dataset; returns the new attempt (the fence)."""
        result = self.session.exec(  # type: ignore[call-overload]
            update(Dataset)
            .where(col(Dataset.id) == dataset_id, Dataset.status == RUNNING, Dataset.attempt == attempt)
            .values(attempt=attempt + 1, locked_by=owner, lease_until=now + lease,
                    started_at=func.coalesce(Dataset.started_at, now), progress=0.0, records_generated=0)
        )
        return attempt + 1 if result.rowcount == 1 else None

    def dataset(self, dataset_id: int) -> Dataset | None:
        return self.session.get(Dataset, dataset_id)

    def schema(self, schema_id: int) -> SchemaDoc | None:
        return self.session.get(SchemaDoc, schema_id)

    def files(self, dataset_id: int) -> list[DatasetFile]:
        stmt = select(DatasetFile).where(DatasetFile.dataset_id == dataset_id).order_by(
            col(DatasetFile.format), col(DatasetFile.file_index))
        return list(self.session.exec(stmt).all())


def fenced_update(conn: Connection, dataset_id: int, attempt: int, **values: object) -> bool:
    """Update the dataset only while this worker still holds it (running, same attempt)."""
    result = conn.execute(
        update(Dataset).where(col(Dataset.id) == dataset_id, Dataset.attempt == attempt, Dataset.status == RUNNING)
        .values(**values)
    )
    return result.rowcount == 1
