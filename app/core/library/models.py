"""The schema library's tables: schemas, their links to projects, constraint sets."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, DateTime
from sqlmodel import Field, SQLModel

from app.core.models import NEVER_REUSE_IDS, utcnow


class SchemaDoc(SQLModel, table=True):
    """An uploaded schema. The bytes live in content-addressed storage (`storage_key`)."""

    __tablename__ = "schema_doc"
    __table_args__ = NEVER_REUSE_IDS
    id: int | None = Field(default=None, primary_key=True)
    tenant_id: int = Field(foreign_key="tenant.id", index=True)
    name: str = Field(max_length=200)
    type: str = Field(max_length=16)  # json_schema | xsd
    version: str = Field(max_length=16)
    filename: str | None = Field(default=None, max_length=200)
    size_bytes: int
    sha256: str = Field(max_length=64, index=True)
    storage_key: str = Field(max_length=100)
    roots: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    default_root: str = Field(max_length=500)
    field_count: int = 0
    created_by: int | None = Field(default=None, foreign_key="user_account.id")
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))


class ProjectSchema(SQLModel, table=True):
    __tablename__ = "project_schema"
    project_id: int = Field(foreign_key="project.id", primary_key=True, ondelete="CASCADE")
    schema_id: int = Field(foreign_key="schema_doc.id", primary_key=True, index=True, ondelete="CASCADE")
    linked_by: int | None = None
    linked_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))


class ConstraintSet(SQLModel, table=True):
    __tablename__ = "constraint_set"
    __table_args__ = NEVER_REUSE_IDS
    id: int | None = Field(default=None, primary_key=True)
    tenant_id: int = Field(foreign_key="tenant.id", index=True)
    schema_id: int = Field(foreign_key="schema_doc.id", index=True, ondelete="CASCADE")
    name: str = Field(max_length=200)
    description: str = ""
    root: str | None = Field(default=None, max_length=500)
    rules: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    created_by: int | None = Field(default=None, foreign_key="user_account.id")
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
    updated_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
