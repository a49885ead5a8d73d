"""SQLModel tables. No relationships: nested data is loaded through per-request dataloaders,
so no lazy load can ever fire on the request path."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Protocol

from sqlalchemy import JSON, BigInteger, Column, DateTime, Index, Integer
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


# A table with an integer key is AUTOINCREMENT on SQLite, which otherwise gives the highest
# deleted id to the next row: a client still holding that id (a CI job, a bookmark) would then
# reach another row. PostgreSQL sequences never hand an id out twice. Migration 0007 rebuilt the
# tables made before this.
NEVER_REUSE_IDS: dict[str, Any] = {"sqlite_autoincrement": True}


class _Keyed(Protocol):
    @property
    def id(self) -> int | None: ...


def stored_id(row: _Keyed) -> int:
    """The primary key of a row that was loaded or flushed (`id` is None only before that)."""
    if row.id is None:
        raise ValueError(f"{type(row).__name__} has no id yet: it was neither loaded nor flushed.")
    return row.id


class Role(StrEnum):
    # member names equal the values so GraphQL enums and REST JSON share one vocabulary
    Tester = "Tester"
    Manager = "Manager"
    Admin = "Admin"
    SuperUser = "SuperUser"

    @property
    def rank(self) -> int:
        return _ROLE_RANK[self]


_ROLE_RANK = {Role.Tester: 1, Role.Manager: 2, Role.Admin: 3, Role.SuperUser: 4}


class ProjectRole(StrEnum):
    view = "view"
    edit = "edit"
    owner = "owner"

    @property
    def rank(self) -> int:
        return {"view": 1, "edit": 2, "owner": 3}[self.value]


class TokenAction(StrEnum):
    """What an API token's scope may allow, a closed set: each covers some authz actions
    (app/core/authz.py, TOKEN_ACTIONS)."""

    read = "read"
    upload = "upload"
    generate = "generate"
    download = "download"


class AuditLog(SQLModel, table=True):
    """Append-only: the service layer inserts, nothing updates or deletes."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_tenant_at", "tenant_id", "at"), NEVER_REUSE_IDS)
    id: int | None = Field(
        default=None,
        sa_column=Column(
            BigInteger().with_variant(Integer(), "sqlite"), primary_key=True, autoincrement=True
        ),
    )
    at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
    actor_id: int | None = Field(default=None, index=True)
    actor_username: str | None = None
    role: str | None = None
    tenant_id: int | None = None
    action: str = Field(max_length=64, index=True)
    project_id: int | None = Field(default=None, index=True)
    target_type: str | None = None
    target_id: str | None = None
    details: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    ip: str | None = None
    success: bool = True


class DomainEvent(SQLModel, table=True):
    """Events recorded in the same transaction as the change that caused them (the outbox)."""

    __tablename__ = "domain_event"
    id: str = Field(primary_key=True, max_length=40)
    type: str = Field(max_length=64, index=True)
    tenant_id: int | None = Field(default=None, index=True)
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
    data: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    # set once the webhook dispatcher has turned the event into delivery rows
    fanned_out_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True), index=True)


