"""Datasets and their files, as the caller may see them."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, bindparam, func
from sqlmodel import col
from sqlmodel.sql.expression import Select

from app.core.datasets.models import Dataset, DatasetFile, DatasetShard, DatasetStatus
from app.core.error_codes import ErrorCode
from app.core.errors import NotFound
from app.core.repositories.base import ScopedRepository
from app.core.repositories.visibility import visible_project_ids


class DatasetRepository(ScopedRepository):
    def visible(self) -> ColumnElement[bool]:
        """The dataset's project is one the caller may see (the one visibility rule)."""
        return col(Dataset.project_id).in_(visible_project_ids(self.principal))

    async def get(self, dataset_id: int) -> Dataset:
        # one query: the row only if its project is visible (a CI pipeline polls this)
        return await self.get_owned(Dataset, dataset_id, self.visible())

    async def get_with_files(self, dataset_id: int) -> tuple[Dataset, builtins.list[DatasetFile]]:
        """The dataset (only if its project is visible) and its files in one round trip, not two:
        GET /datasets/{id} answers both, and a CI pipeline polls it."""
        stmt = self.per_caller("dataset_with_files", self._with_files)
        rows = (await self.session.exec(stmt, params={"dataset_id": dataset_id})).all()
        if not rows:
            raise NotFound(f"Dataset {dataset_id} was not found.", code=ErrorCode.DATASET_NOT_FOUND)
        return rows[0][0], [file for _, file in rows if file is not None]

    def _with_files(self) -> Select[*tuple[Any, ...]]:
        return (
            self.select(Dataset, DatasetFile)
            .outerjoin(DatasetFile, col(DatasetFile.dataset_id) == Dataset.id)
            .where(col(Dataset.id) == bindparam("dataset_id"), self.visible())
            .order_by(col(DatasetFile.format), col(DatasetFile.file_index))
        )

    async def list(
        self, *, project_id: int | None, status: str | None, limit: int, offset: int
    ) -> tuple[builtins.list[Dataset], int]:
        stmt = self.select(Dataset).where(self.visible())
        if project_id is not None:
            stmt = stmt.where(Dataset.project_id == project_id)
        if status:
            stmt = stmt.where(Dataset.status == status)
        return await self.paginate(stmt.order_by(col(Dataset.id).desc()), limit, offset)

    async def of_projects(self, project_ids: Sequence[int]) -> dict[int, builtins.list[Dataset]]:
        stmt = (
            self.select(Dataset)
            .where(col(Dataset.project_id).in_(project_ids))
            .order_by(col(Dataset.id).desc())
        )
        out: dict[int, list[Dataset]] = {pid: [] for pid in project_ids}
        for row in (await self.session.exec(stmt)).all():
            out[row.project_id].append(row)
        return out

    async def followed(
        self, *, project_id: int | None, ids: Sequence[int], after_id: int
    ) -> builtins.list[Dataset]:
        """What a live stream of datasets looks at: the visible ones that are queued or running,
        those in `ids` (followed since the last look) and any newer than `after_id`."""
        watched = (
            col(Dataset.status).in_((DatasetStatus.queued.value, DatasetStatus.running.value))
            | col(Dataset.id).in_(ids)
            | (col(Dataset.id) > after_id)
        )
        stmt = self.select(Dataset).where(self.visible(), watched)
        if project_id is not None:
            stmt = stmt.where(Dataset.project_id == project_id)
        return list((await self.session.exec(stmt.order_by(col(Dataset.id)))).all())

    async def newest_id(self, *, project_id: int | None) -> int:
        """The highest visible dataset id (0 when there is none)."""
        stmt = self.select(func.max(Dataset.id), scope=Dataset).where(self.visible())
        if project_id is not None:
            stmt = stmt.where(Dataset.project_id == project_id)
        return int((await self.session.exec(stmt)).one() or 0)

    async def drop_work(self, dataset_id: int) -> None:
        """A cancelled dataset's shard rows (its workers lose their fence either way)."""
        mine = self.select(Dataset.id).where(col(Dataset.id) == dataset_id)
        await self.session.exec(self.delete_where(DatasetShard, col(DatasetShard.dataset_id).in_(mine)))

    async def expire(self, dataset_id: int, reason: str) -> bool:
        """completed -> expired with `reason`, its file rows gone (a stored file went missing),
        unless the dataset changed meanwhile."""
        result = await self.session.exec(
            self.update(Dataset)
            .where(
                col(Dataset.id) == dataset_id,
                col(Dataset.status) == DatasetStatus.completed.value,
                self.visible(),
            )
            .values(status=DatasetStatus.expired.value, error=reason)
        )
        if result.rowcount != 1:
            return False
        await self.session.exec(self.delete_where(DatasetFile, col(DatasetFile.dataset_id) == dataset_id))
        return True

    async def files_of(self, dataset_ids: Sequence[int]) -> dict[int, builtins.list[DatasetFile]]:
        stmt = (
            self.select(DatasetFile, scope=Dataset)
            .join(Dataset, col(Dataset.id) == DatasetFile.dataset_id)
            .where(col(DatasetFile.dataset_id).in_(dataset_ids))
            .order_by(col(DatasetFile.format), col(DatasetFile.file_index))
        )
        out: dict[int, list[DatasetFile]] = {did: [] for did in dataset_ids}
        for row in (await self.session.exec(stmt)).all():
            out[row.dataset_id].append(row)
        return out

    async def file(self, dataset_id: int, fmt: str, file_index: int) -> DatasetFile | None:
        stmt = (
            self.select(DatasetFile, scope=Dataset)
            .join(Dataset, col(Dataset.id) == DatasetFile.dataset_id)
            .where(
                DatasetFile.dataset_id == dataset_id,
                DatasetFile.format == fmt,
                DatasetFile.file_index == file_index,
            )
        )
        return (await self.session.exec(stmt)).first()

    async def of_project(self, project_id: int) -> builtins.list[Dataset]:
        return list(
            (await self.session.exec(self.select(Dataset).where(Dataset.project_id == project_id))).all()
        )
