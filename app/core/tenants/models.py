"""The tenant table."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime
from sqlmodel import Field, SQLModel

from app.core.models import NEVER_REUSE_IDS, utcnow


class Tenant(SQLModel, table=True):
    __tablename__ = "tenant"
    __table_args__ = NEVER_REUSE_IDS
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=100, unique=True)
    is_active: bool = True
    max_record_count: int = 10_000_000
    max_concurrent_generations: int = 4
    retention_days: int | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
    updated_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
