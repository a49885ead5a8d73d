"""Base of the scoped repositories."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, true
from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.principal import Principal


class ScopedRepository:
    def __init__(self, session: AsyncSession, principal: Principal) -> None:
        self.session = session
        self.principal = principal

    def tenant_clause(self, column: Any) -> ColumnElement[bool]:
        """`column == caller's tenant`, or no restriction for a SuperUser."""
        if self.principal.is_superuser:
            return true()
        return column == self.principal.tenant_id


def page(stmt: Any, limit: int, offset: int) -> Any:
    return stmt.limit(limit).offset(offset)
