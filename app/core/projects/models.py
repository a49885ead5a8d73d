"""The project tables: projects and their members."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column, DateTime
from sqlmodel import Field, SQLModel

from app.core.models import NEVER_REUSE_IDS, ProjectRole, utcnow


class Project(SQLModel, table=True):
    __tablename__ = "project"
    __table_args__ = NEVER_REUSE_IDS
    id: int | None = Field(default=None, primary_key=True)
    tenant_id: int = Field(foreign_key="tenant.id", index=True)
    name: str = Field(max_length=200)
    description: str = ""
    tags: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    created_by: int | None = Field(default=None, foreign_key="user_account.id")
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
    updated_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))


class ProjectMember(SQLModel, table=True):
    __tablename__ = "project_member"
    project_id: int = Field(foreign_key="project.id", primary_key=True, ondelete="CASCADE")
    user_id: int = Field(foreign_key="user_account.id", primary_key=True, index=True)
    role: str = Field(default=ProjectRole.view.value, max_length=8)
    added_by: int | None = None
    added_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
