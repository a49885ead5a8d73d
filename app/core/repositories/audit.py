"""Audit rows: Admins read their tenant's, a SuperUser reads all."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import col

from app.core.models import AuditLog
from app.core.repositories.base import ScopedRepository
from app.core.repositories.text_match import starts_with


class AuditRepository(ScopedRepository):
    async def search(
        self,
        *,
        action: str | None,
        actor_id: int | None,
        role: str | None,
        project_id: int | None,
        start: datetime | None,
        end: datetime | None,
        tenant_id: int | None,
        limit: int,
        offset: int,
    ) -> tuple[list[AuditLog], int]:
        stmt = self.select(AuditLog)
        if action:
            # "project" matches project.create, project.delete, ...; an exact name matches itself
            stmt = stmt.where(
                (col(AuditLog.action) == action) | starts_with(AuditLog.action, action + ".")
            )
        if actor_id is not None:
            stmt = stmt.where(AuditLog.actor_id == actor_id)
        if role:
            stmt = stmt.where(AuditLog.role == role)
        if project_id is not None:
            stmt = stmt.where(AuditLog.project_id == project_id)
        # SQLite stores UTC wall-clock text and drops a bound value's offset: compare in UTC
        if start is not None:
            stmt = stmt.where(AuditLog.at >= start.astimezone(UTC))
        if end is not None:
            stmt = stmt.where(AuditLog.at <= end.astimezone(UTC))
        if tenant_id is not None:
            stmt = stmt.where(AuditLog.tenant_id == tenant_id)
        return await self.paginate(stmt.order_by(col(AuditLog.id).desc()), limit, offset)
