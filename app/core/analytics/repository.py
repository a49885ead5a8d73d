"""Generation statistics, aggregated in SQL over the datasets the caller may see.

The scope is the `datasets` list's own rule (`DatasetRepository.visible`, inherited),
so the charts can never count a dataset the list would hide. Each method is one aggregate
statement written with SQLAlchemy expressions; the few functions SQLite and PostgreSQL spell
differently (the UTC day of a timestamp, seconds between two) are chosen per dialect here, as
ProjectRepository does for tag search."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Date, Float, Text, case, cast, desc, func
from sqlmodel import col

from app.core.datasets.models import Dataset, DatasetFile, DatasetStatus
from app.core.datasets.repository import DatasetRepository
from app.core.library.models import SchemaDoc
from app.core.projects.models import Project
from app.generation.output_formats import FORMAT_NAMES

TOP = 10


class AnalyticsRepository(DatasetRepository):
    @property
    def _postgres(self) -> bool:
        return self.dialect_name() == "postgresql"

    def _day(self, column: Any) -> ColumnElement[Any]:
        """The UTC day of a timestamp: a date on PostgreSQL (in UTC, not the session's zone; grouped
        as a date, which is cheaper than grouping to_char's text), `YYYY-MM-DD` text on SQLite (the
        prefix of the stored UTC wall time 'YYYY-MM-DD HH:MM:SS.ffffff', cheaper than parsing it).
        `str()` of either is the ISO day."""
        if self._postgres:
            return cast(func.timezone("UTC", column), Date)
        return func.substr(column, 1, 10)

    def _seconds(self, start: Any, end: Any) -> ColumnElement[float]:
        if self._postgres:
            return cast(func.extract("epoch", end - start), Float)
        # a Julian day number carries about 40 microseconds of float noise: keep milliseconds
        return func.round((func.julianday(end) - func.julianday(start)) * 86400.0, 3)

    def _scope(self, project_id: int | None, since: datetime | None) -> list[ColumnElement[bool]]:
        clauses = [self.visible()]
        if project_id is not None:
            clauses.append(col(Dataset.project_id) == project_id)
        if since is not None:
            clauses.append(col(Dataset.created_at) >= since)
        return clauses

    async def totals(self, project_id: int | None, since: datetime) -> dict[str, Any]:
        """Counts by status, records, file bytes and datasets per format, in one pass."""
        scope = self._scope(project_id, since)

        def count_if(condition: ColumnElement[bool]) -> Any:
            return func.coalesce(func.sum(case((condition, 1), else_=0)), 0)

        # `types` holds formats of FORMAT_NAMES (checked at creation): a LIKE per format counts them
        # in the same scan as the totals, where unnesting the JSON arrays (json_each /
        # json_array_elements_text) cost a join and a second pass per query
        types_text = cast(Dataset.types, Text)
        formats = [count_if(types_text.like(f'%"{fmt}"%')) for fmt in FORMAT_NAMES]
        statuses = [
            count_if(col(Dataset.status) == s.value)
            for s in (
                DatasetStatus.completed,
                DatasetStatus.failed,
                DatasetStatus.running,
                DatasetStatus.queued,
            )
        ]
        # a semi-join: both planners pick from the file table's dataset_id index (few datasets in
        # the period) or a hash of the ids (many); a per-row correlated sum was 30 ms on PostgreSQL
        in_period = self.select(Dataset.id).where(*scope)
        # restricted through `in_period`, which is scoped
        file_bytes = (
            self.unscoped(func.coalesce(func.sum(DatasetFile.size_bytes), 0))
            .where(col(DatasetFile.dataset_id).in_(in_period))
            .scalar_subquery()
        )
        stmt = self.select(
            func.count(),
            *statuses,
            func.coalesce(func.sum(Dataset.records_generated), 0),
            file_bytes,
            *formats,
            scope=Dataset,
        ).where(*scope)
        row = list((await self.session.exec(stmt)).one())
        keys = ("datasets", "completed", "failed", "running", "queued", "records", "bytes")
        out: dict[str, Any] = dict(zip(keys, row, strict=False))
        out["formats"] = dict(zip(FORMAT_NAMES, row[len(keys) :], strict=True))
        return out

    async def per_day(self, project_id: int | None, since: datetime) -> list[tuple[str, str, int, Any]]:
        day = self._day(Dataset.created_at)
        stmt = (
            self.select(
                day,
                Dataset.status,
                func.count(),
                func.coalesce(func.sum(Dataset.records_generated), 0),
                scope=Dataset,
            )
            .where(*self._scope(project_id, since))
            .group_by(day, Dataset.status)
            .order_by(day, Dataset.status)
        )
        return [(str(d), *rest) for d, *rest in (await self.session.exec(stmt)).all()]

    async def top(
        self, by: type[Project] | type[SchemaDoc], project_id: int | None, since: datetime
    ) -> list[tuple[int, str, int, Any]]:
        """The TOP projects or schemas by records generated: (id, name, datasets, records)."""
        key = col(Dataset.project_id) if by is Project else col(Dataset.schema_id)
        records = func.coalesce(func.sum(Dataset.records_generated), 0)
        stmt = (
            self.select(by.id, by.name, func.count(col(Dataset.id)), records, scope=Dataset)
            .join(by, col(by.id) == key)
            .where(*self._scope(project_id, since))
            .group_by(col(by.id), col(by.name))
            .order_by(desc(records), col(by.id))
            .limit(TOP)
        )
        return [tuple(r) for r in (await self.session.exec(stmt)).all()]

    async def failure_reasons(self, project_id: int | None, since: datetime) -> list[tuple[str, int]]:
        reason = func.coalesce(Dataset.error, "")
        stmt = (
            self.select(reason, func.count(), scope=Dataset)
            .where(*self._scope(project_id, since), col(Dataset.status) == DatasetStatus.failed.value)
            .group_by(reason)
            .order_by(desc(func.count()), reason)
            .limit(TOP)
        )
        return [tuple(r) for r in (await self.session.exec(stmt)).all()]

    async def throughput(self, project_id: int | None, since: datetime) -> list[tuple[str, Any, Any]]:
        """Per UTC day of finishing: records of the datasets completed that day and their
        generation seconds (started -> finished)."""
        day = self._day(Dataset.finished_at)
        stmt = (
            self.select(
                day,
                func.coalesce(func.sum(Dataset.records_generated), 0),
                func.coalesce(func.sum(self._seconds(Dataset.started_at, Dataset.finished_at)), 0.0),
                scope=Dataset,
            )
            .where(
                *self._scope(project_id, None),
                col(Dataset.status) == DatasetStatus.completed.value,
                col(Dataset.started_at).is_not(None),
                col(Dataset.finished_at) >= since,
            )
            .group_by(day)
            .order_by(day)
        )
        return [(str(d), *rest) for d, *rest in (await self.session.exec(stmt)).all()]

    async def storage(self, project_id: int | None) -> list[tuple[int, str, Any]]:
        """Bytes of dataset files per project, all time, largest first."""
        size = func.sum(DatasetFile.size_bytes)
        stmt = (
            self.select(Project.id, Project.name, size, scope=Dataset)
            .select_from(DatasetFile)
            .join(Dataset, col(Dataset.id) == DatasetFile.dataset_id)
            .join(Project, col(Project.id) == Dataset.project_id)
            .where(*self._scope(project_id, None))
            .group_by(col(Project.id), col(Project.name))
            .order_by(desc(size), col(Project.id))
        )
        return [tuple(r) for r in (await self.session.exec(stmt)).all()]
