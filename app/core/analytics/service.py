"""Generation statistics over a period for the analytics page: what the caller may see of the
datasets (the `datasets` list's visibility), optionally one project, aggregated in SQL."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from datetime import time as clock_time
from enum import Enum

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.analytics.repository import AnalyticsRepository
from app.core.library.models import SchemaDoc
from app.core.models import utcnow
from app.core.principal import Principal
from app.core.projects.models import Project
from app.core.projects.repository import ProjectRepository


class AnalyticsPeriod(Enum):
    """Days covered, today (UTC) included."""

    LAST_7_DAYS = 7
    LAST_30_DAYS = 30
    LAST_90_DAYS = 90
    LAST_365_DAYS = 365


@dataclass(frozen=True, slots=True)
class Totals:
    datasets: int
    completed: int
    failed: int
    running: int
    queued: int
    records: float
    bytes: float


@dataclass(frozen=True, slots=True)
class DailyCount:
    day: str
    status: str
    datasets: int
    records: float


@dataclass(frozen=True, slots=True)
class FormatCount:
    format: str
    datasets: int


@dataclass(frozen=True, slots=True)
class RankedItem:
    id: int
    name: str
    datasets: int
    records: float


@dataclass(frozen=True, slots=True)
class FailureReason:
    reason: str
    count: int


@dataclass(frozen=True, slots=True)
class ThroughputPoint:
    day: str
    records: float
    seconds: float
    records_per_second: float


@dataclass(frozen=True, slots=True)
class ProjectStorage:
    project_id: int
    name: str
    bytes: float


@dataclass(frozen=True, slots=True)
class AnalyticsReport:
    period_start: str
    period_end: str
    totals: Totals
    per_day: list[DailyCount]
    formats: list[FormatCount]
    top_projects: list[RankedItem]
    top_schemas: list[RankedItem]
    failure_reasons: list[FailureReason]
    throughput: list[ThroughputPoint]
    storage: list[ProjectStorage]


def period_bounds(period: AnalyticsPeriod, today: date) -> tuple[date, datetime]:
    """The first day included and the instant it starts (UTC midnight)."""
    first = today - timedelta(days=period.value - 1)
    return first, datetime.combine(first, clock_time.min, tzinfo=UTC)


async def report(
    session: AsyncSession, principal: Principal, *, period: AnalyticsPeriod, project_id: int | None
) -> AnalyticsReport:
    if project_id is not None:
        await ProjectRepository(session, principal).get(project_id)  # invisible: 404, as the datasets list
    today = utcnow().date()
    first, since = period_bounds(period, today)
    repo = AnalyticsRepository(session, principal)
    totals = await repo.totals(project_id, since)
    throughput = []
    for day, records, seconds in await repo.throughput(project_id, since):
        records, seconds = float(records), float(seconds)
        throughput.append(ThroughputPoint(day, records, seconds, records / seconds if seconds > 0 else 0.0))
    return AnalyticsReport(
        period_start=first.isoformat(),
        period_end=today.isoformat(),
        totals=Totals(
            datasets=int(totals["datasets"]),
            completed=int(totals["completed"]),
            failed=int(totals["failed"]),
            running=int(totals["running"]),
            queued=int(totals["queued"]),
            records=float(totals["records"]),
            bytes=float(totals["bytes"]),
        ),
        per_day=[DailyCount(d, s, int(n), float(r)) for d, s, n, r in await repo.per_day(project_id, since)],
        formats=[
            FormatCount(f, int(n))
            for f, n in sorted(totals["formats"].items(), key=lambda kv: (-kv[1], kv[0]))
            if n
        ],
        top_projects=[
            RankedItem(i, name, int(n), float(r))
            for i, name, n, r in await repo.top(Project, project_id, since)
        ],
        top_schemas=[
            RankedItem(i, name, int(n), float(r))
            for i, name, n, r in await repo.top(SchemaDoc, project_id, since)
        ],
        failure_reasons=[
            FailureReason(reason, int(n)) for reason, n in await repo.failure_reasons(project_id, since)
        ],
        throughput=throughput,
        storage=[ProjectStorage(i, name, float(b)) for i, name, b in await repo.storage(project_id)],
    )
