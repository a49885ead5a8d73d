"""Schemas, project links and constraint sets of the caller's tenant."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, func
from sqlmodel import col, select

from app.core.errors import NotFound
from app.core.models import ConstraintSet, Dataset, ProjectSchema, SchemaDoc
from app.core.repositories.base import ScopedRepository, page


class SchemaRepository(ScopedRepository):
    async def get(self, schema_id: int) -> SchemaDoc:
        row = await self.session.get(SchemaDoc, schema_id)
        if row is None or not (self.principal.is_superuser or row.tenant_id == self.principal.tenant_id):
            raise NotFound(f"Schema {schema_id} was not found.")
        return row

    async def list(self, *, project_id: int | None, q: str | None, limit: int, offset: int) -> tuple[list[SchemaDoc], int]:
        stmt = select(SchemaDoc).where(self.tenant_clause(SchemaDoc.tenant_id))
        if project_id is not None:
            stmt = stmt.where(col(SchemaDoc.id).in_(
                select(ProjectSchema.schema_id).where(ProjectSchema.project_id == project_id)))
        if q:
            stmt = stmt.where(func.lower(SchemaDoc.name).contains(q.lower(), autoescape=True))
        total = (await self.session.exec(select(func.count()).select_from(stmt.subquery()))).one()
        rows = (await self.session.exec(page(stmt.order_by(col(SchemaDoc.id)), limit, offset))).all()
        return list(rows), int(total)

    async def project_ids(self, schema_ids: Sequence[int]) -> dict[int, list[int]]:
        stmt = (
            select(ProjectSchema.schema_id, ProjectSchema.project_id)
            .join(SchemaDoc, col(SchemaDoc.id) == ProjectSchema.schema_id)
            .where(col(ProjectSchema.schema_id).in_(schema_ids), self.tenant_clause(SchemaDoc.tenant_id))
            .order_by(col(ProjectSchema.project_id))
        )
        out: dict[int, list[int]] = {sid: [] for sid in schema_ids}
        for sid, pid in (await self.session.exec(stmt)).all():
            out[sid].append(pid)
        return out

    async def of_projects(self, project_ids: Sequence[int]) -> dict[int, list[SchemaDoc]]:
        stmt = (
            select(ProjectSchema.project_id, SchemaDoc)
            .join(SchemaDoc, col(SchemaDoc.id) == ProjectSchema.schema_id)
            .where(col(ProjectSchema.project_id).in_(project_ids), self.tenant_clause(SchemaDoc.tenant_id))
            .order_by(col(SchemaDoc.id))
        )
        out: dict[int, list[SchemaDoc]] = {pid: [] for pid in project_ids}
        for pid, schema in (await self.session.exec(stmt)).all():
            out[pid].append(schema)
        return out

    async def link(self, project_id: int, schema_id: int) -> ProjectSchema | None:
        return await self.session.get(ProjectSchema, (project_id, schema_id))

    async def dataset_count(self, schema_id: int) -> int:
        stmt = select(func.count()).where(Dataset.schema_id == schema_id, Dataset.status != "cancelled")
        return int((await self.session.exec(stmt)).one())

    async def unlink_all(self, schema_id: int) -> None:
        await self.session.exec(delete(ProjectSchema).where(col(ProjectSchema.schema_id) == schema_id))  # type: ignore[call-overload]


class ConstraintSetRepository(ScopedRepository):
    async def get(self, constraint_id: int) -> ConstraintSet:
        row = await self.session.get(ConstraintSet, constraint_id)
        if row is None or not (self.principal.is_superuser or row.tenant_id == self.principal.tenant_id):
            raise NotFound(f"Constraint set {constraint_id} was not found.")
        return row

    async def list(self, *, schema_id: int | None, limit: int, offset: int) -> tuple[list[ConstraintSet], int]:
        stmt = select(ConstraintSet).where(self.tenant_clause(ConstraintSet.tenant_id))
        if schema_id is not None:
            stmt = stmt.where(ConstraintSet.schema_id == schema_id)
        total = (await self.session.exec(select(func.count()).select_from(stmt.subquery()))).one()
        rows = (await self.session.exec(page(stmt.order_by(col(ConstraintSet.id)), limit, offset))).all()
        return list(rows), int(total)

    async def of_schema(self, schema_id: int) -> list[ConstraintSet]:
        stmt = select(ConstraintSet).where(ConstraintSet.schema_id == schema_id, self.tenant_clause(ConstraintSet.tenant_id))
        return list((await self.session.exec(stmt)).all())
