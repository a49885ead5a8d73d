"""Schemas, project links and constraint sets of the caller's tenant."""

from __future__ import annotations

import builtins
from collections.abc import Sequence

from sqlalchemy import func
from sqlmodel import col

from app.core.datasets.models import Dataset
from app.core.library.models import ConstraintSet, ProjectSchema, SchemaDoc
from app.core.repositories.base import ScopedRepository
from app.core.repositories.text_match import contains_folded


class SchemaRepository(ScopedRepository):
    async def get(self, schema_id: int) -> SchemaDoc:
        return await self.get_owned(SchemaDoc, schema_id)

    async def list(
        self, *, project_id: int | None, q: str | None, limit: int, offset: int
    ) -> tuple[builtins.list[SchemaDoc], int]:
        stmt = self.select(SchemaDoc)
        if project_id is not None:
            stmt = stmt.where(
                col(SchemaDoc.id).in_(
                    self.unscoped(ProjectSchema.schema_id).where(ProjectSchema.project_id == project_id)
                )
            )
        if q:
            stmt = stmt.where(contains_folded(SchemaDoc.name, q))
        return await self.paginate(stmt.order_by(col(SchemaDoc.id)), limit, offset)

    async def project_ids(self, schema_ids: Sequence[int]) -> dict[int, builtins.list[int]]:
        stmt = (
            self.select(ProjectSchema.schema_id, ProjectSchema.project_id, scope=SchemaDoc)
            .join(SchemaDoc, col(SchemaDoc.id) == ProjectSchema.schema_id)
            .where(col(ProjectSchema.schema_id).in_(schema_ids))
            .order_by(col(ProjectSchema.project_id))
        )
        out: dict[int, list[int]] = {sid: [] for sid in schema_ids}
        for sid, pid in (await self.session.exec(stmt)).all():
            out[sid].append(pid)
        return out

    async def of_projects(self, project_ids: Sequence[int]) -> dict[int, builtins.list[SchemaDoc]]:
        stmt = (
            self.select(ProjectSchema.project_id, SchemaDoc, scope=SchemaDoc)
            .join(SchemaDoc, col(SchemaDoc.id) == ProjectSchema.schema_id)
            .where(col(ProjectSchema.project_id).in_(project_ids))
            .order_by(col(SchemaDoc.id))
        )
        out: dict[int, list[SchemaDoc]] = {pid: [] for pid in project_ids}
        for pid, schema in (await self.session.exec(stmt)).all():
            out[pid].append(schema)
        return out

    async def link(self, project_id: int, schema_id: int) -> ProjectSchema | None:
        return await self.session.get(ProjectSchema, (project_id, schema_id))

    async def dataset_count(self, schema_id: int) -> int:
        # in use anywhere, also in projects the caller cannot see
        stmt = self.unscoped(func.count()).where(
            Dataset.schema_id == schema_id, Dataset.status != "cancelled"
        )
        return int((await self.session.exec(stmt)).one())

    async def unlink_all(self, schema_id: int) -> None:
        await self.session.exec(self.delete_where(ProjectSchema, col(ProjectSchema.schema_id) == schema_id))


class ConstraintSetRepository(ScopedRepository):
    async def get(self, constraint_id: int) -> ConstraintSet:
        return await self.get_owned(ConstraintSet, constraint_id)

    async def list(
        self, *, schema_id: int | None, limit: int, offset: int
    ) -> tuple[builtins.list[ConstraintSet], int]:
        stmt = self.select(ConstraintSet)
        if schema_id is not None:
            stmt = stmt.where(ConstraintSet.schema_id == schema_id)
        return await self.paginate(stmt.order_by(col(ConstraintSet.id)), limit, offset)

    async def of_schema(self, schema_id: int) -> builtins.list[ConstraintSet]:
        stmt = self.select(ConstraintSet).where(ConstraintSet.schema_id == schema_id)
        return list((await self.session.exec(stmt)).all())

    async def dataset_count(self, constraint_id: int) -> int:
        # in use anywhere, also in projects the caller cannot see
        stmt = self.unscoped(func.count()).where(Dataset.constraint_set_id == constraint_id)
        return int((await self.session.exec(stmt)).one())
