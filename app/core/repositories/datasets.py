"""Datasets, their files and notifications, as the caller may see them."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, func, update
from sqlmodel import col, select

from app.core.errors import NotFound
from app.core.models import (
    Dataset,
    DatasetFile,
    DatasetShard,
    DatasetStatus,
    Notification,
    Project,
    ProjectMember,
    Role,
    utcnow,
)
from app.core.repositories.base import ScopedRepository, page


class DatasetRepository(ScopedRepository):
    def _visible_projects(self):  # type: ignore[no-untyped-def]
        """Ids of the projects the caller may see (same rule as ProjectRepository)."""
        p = self.principal
        stmt = select(Project.id).where(self.tenant_clause(Project.tenant_id))
        if p.is_superuser or p.role is Role.Admin:
            return stmt
        member = col(Project.id).in_(select(ProjectMember.project_id).where(ProjectMember.user_id == p.user_id))
        if p.role is Role.Manager:
            return stmt.where((Project.created_by == p.user_id) | member)
        return stmt.where(member)

    async def get(self, dataset_id: int) -> Dataset:
        # one query: the row only if its project is visible (a CI pipeline polls this)
        stmt = select(Dataset).where(col(Dataset.id) == dataset_id,
                                     col(Dataset.project_id).in_(self._visible_projects()))
        row = (await self.session.exec(stmt)).first()
        if row is None:
            raise NotFound(f"Dataset {dataset_id} was not found.")
        return row

    async def list(self, *, project_id: int | None, status: str | None, limit: int, offset: int) -> tuple[list[Dataset], int]:
        stmt = select(Dataset).where(col(Dataset.project_id).in_(self._visible_projects()))
        if project_id is not None:
            stmt = stmt.where(Dataset.project_id == project_id)
        if status:
            stmt = stmt.where(Dataset.status == status)
        total = (await self.session.exec(select(func.count()).select_from(stmt.subquery()))).one()
        rows = (await self.session.exec(page(stmt.order_by(col(Dataset.id).desc()), limit, offset))).all()
        return list(rows), int(total)

    async def of_projects(self, project_ids: Sequence[int]) -> dict[int, list[Dataset]]:
        stmt = (select(Dataset).where(col(Dataset.project_id).in_(project_ids), self.tenant_clause(Dataset.tenant_id))
                .order_by(col(Dataset.id).desc()))
        out: dict[int, list[Dataset]] = {pid: [] for pid in project_ids}
        for row in (await self.session.exec(stmt)).all():
            out[row.project_id].append(row)
        return out

    async def followed(self, *, project_id: int | None, ids: Sequence[int], after_id: int) -> list[Dataset]:
        """What a live stream of datasets looks at: the visible ones that are queued or running,
        those in `ids` (followed since the last look) and any newer than `after_id`."""
        watched = (col(Dataset.status).in_((DatasetStatus.queued.value, DatasetStatus.running.value))
                   | col(Dataset.id).in_(ids) | (col(Dataset.id) > after_id))
        stmt = select(Dataset).where(col(Dataset.project_id).in_(self._visible_projects()), watched)
        if project_id is not None:
            stmt = stmt.where(Dataset.project_id == project_id)
        return list((await self.session.exec(stmt.order_by(col(Dataset.id)))).all())

    async def newest_id(self, *, project_id: int | None) -> int:
        """The highest visible dataset id (0 when there is none)."""
        stmt = select(func.max(Dataset.id)).where(col(Dataset.project_id).in_(self._visible_projects()))
        if project_id is not None:
            stmt = stmt.where(Dataset.project_id == project_id)
        return int((await self.session.exec(stmt)).one() or 0)

    async def drop_work(self, dataset_id: int) -> None:
        """A cancelled dataset's shard rows (its workers lose their fence either way)."""
        mine = select(Dataset.id).where(col(Dataset.id) == dataset_id, self.tenant_clause(Dataset.tenant_id))
        await self.session.exec(delete(DatasetShard).where(col(DatasetShard.dataset_id).in_(mine)))  # type: ignore[call-overload]

    async def files_of(self, dataset_ids: Sequence[int]) -> dict[int, list[DatasetFile]]:
        stmt = (select(DatasetFile).join(Dataset, col(Dataset.id) == DatasetFile.dataset_id)
                .where(col(DatasetFile.dataset_id).in_(dataset_ids), self.tenant_clause(Dataset.tenant_id))
                .order_by(col(DatasetFile.format), col(DatasetFile.file_index)))
        out: dict[int, list[DatasetFile]] = {did: [] for did in dataset_ids}
        for row in (await self.session.exec(stmt)).all():
            out[row.dataset_id].append(row)
        return out

    async def file(self, dataset_id: int, fmt: str, file_index: int) -> DatasetFile | None:
        stmt = select(DatasetFile).where(DatasetFile.dataset_id == dataset_id, DatasetFile.format == fmt,
                                         DatasetFile.file_index == file_index)
        return (await self.session.exec(stmt)).first()

    async def count_for_constraint_set(self, constraint_id: int) -> int:
        stmt = select(func.count()).where(Dataset.constraint_set_id == constraint_id)
        return int((await self.session.exec(stmt)).one())

    async def of_project(self, project_id: int) -> list[Dataset]:
        return list((await self.session.exec(select(Dataset).where(Dataset.project_id == project_id))).all())


class NotificationRepository(ScopedRepository):
    """Only ever the caller's own notifications."""

    async def list(self, *, unread_only: bool, limit: int, offset: int) -> tuple[list[Notification], int]:
        stmt = select(Notification).where(Notification.user_id == self.principal.user_id)
        if unread_only:
            stmt = stmt.where(col(Notification.read_at).is_(None))
        total = (await self.session.exec(select(func.count()).select_from(stmt.subquery()))).one()
        rows = (await self.session.exec(page(stmt.order_by(col(Notification.id).desc()), limit, offset))).all()
        return list(rows), int(total)

    async def get(self, notification_id: int) -> Notification:
        row = await self.session.get(Notification, notification_id)
        if row is None or row.user_id != self.principal.user_id:
            raise NotFound(f"Notification {notification_id} was not found.")
        return row

    async def unread_count(self) -> int:
        stmt = select(func.count()).where(Notification.user_id == self.principal.user_id,
                                          col(Notification.read_at).is_(None))
        return int((await self.session.exec(stmt)).one())

    async def mark_all_read(self) -> None:
        await self.session.exec(update(Notification).where(  # type: ignore[call-overload]
            col(Notification.user_id) == self.principal.user_id, col(Notification.read_at).is_(None)
        ).values(read_at=utcnow()))
