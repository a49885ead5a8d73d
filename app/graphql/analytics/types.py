"""Analytics types. Sums are Float: GraphQL Int is 32-bit and records or bytes
summed over many datasets exceed it."""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

import strawberry

from app.core.analytics import service as analytics

AnalyticsPeriodEnum = strawberry.enum(
    analytics.AnalyticsPeriod, name="AnalyticsPeriod", description="Days covered, today (UTC) included."
)


@strawberry.type
class AnalyticsTotals:
    datasets: int
    completed: int
    failed: int
    running: int
    queued: int
    records: float
    bytes: float


@strawberry.type
class DailyCount:
    day: str
    status: str
    datasets: int
    records: float


@strawberry.type
class FormatCount:
    format: str
    datasets: int


@strawberry.type
class RankedItem:
    id: int
    name: str
    datasets: int
    records: float


@strawberry.type
class FailureReason:
    reason: str
    count: int


@strawberry.type
class ThroughputPoint:
    day: str
    records: float
    seconds: float
    records_per_second: float


@strawberry.type
class ProjectStorage:
    project_id: int
    name: str
    bytes: float


def _each(kind: Any, rows: list[Any]) -> list[Any]:
    # a shallow copy: asdict's deep copy of every value cost more than the rest of the conversion
    names = [f.name for f in fields(kind)]
    return [kind(**{n: getattr(r, n) for n in names}) for r in rows]


@strawberry.type(description="Generation statistics over a period.")
class Analytics:
    period_start: str = strawberry.field(description="ISO date (UTC), first day included")
    period_end: str = strawberry.field(description="ISO date (UTC), today")
    totals: AnalyticsTotals
    per_day: list[DailyCount] = strawberry.field(
        description="One row per (day, status) that has datasets; days as YYYY-MM-DD of created_at (UTC)"
    )
    formats: list[FormatCount] = strawberry.field(
        description="How many datasets listed each format in `types`"
    )
    top_projects: list[RankedItem] = strawberry.field(description="Top 10 by records generated")
    top_schemas: list[RankedItem] = strawberry.field(description="Top 10 by records generated")
    failure_reasons: list[FailureReason] = strawberry.field(
        description="Failed datasets by error text, top 10"
    )
    throughput: list[ThroughputPoint] = strawberry.field(
        description="Per day: records of the datasets completed that day over their generation seconds"
    )
    storage: list[ProjectStorage] = strawberry.field(
        description="Bytes of dataset files per project, largest first (all time, not only the period)"
    )

    @classmethod
    def from_report(cls, report: analytics.AnalyticsReport) -> Analytics:
        return cls(
            period_start=report.period_start,
            period_end=report.period_end,
            totals=AnalyticsTotals(**asdict(report.totals)),
            per_day=_each(DailyCount, report.per_day),
            formats=_each(FormatCount, report.formats),
            top_projects=_each(RankedItem, report.top_projects),
            top_schemas=_each(RankedItem, report.top_schemas),
            failure_reasons=_each(FailureReason, report.failure_reasons),
            throughput=_each(ThroughputPoint, report.throughput),
            storage=_each(ProjectStorage, report.storage),
        )
