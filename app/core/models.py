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


class Integration(SQLModel, table=True):
    """A tenant's webhook endpoint or object store. Secret fields live only in `secrets_enc`."""

    __tablename__ = "integration"
    __table_args__ = NEVER_REUSE_IDS
    id: int | None = Field(default=None, primary_key=True)
    tenant_id: int = Field(foreign_key="tenant.id", index=True)
    provider: str = Field(max_length=32)
    name: str = Field(max_length=200)
    config: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    secrets_enc: str | None = None
    events: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    is_active: bool = True
    consecutive_failures: int = 0
    disabled_reason: str | None = None
    created_by: int | None = Field(default=None, foreign_key="user_account.id")
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
    updated_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))


class DeliveryStatus(StrEnum):
    pending = "pending"
    succeeded = "succeeded"
    failed = "failed"


class WebhookDelivery(SQLModel, table=True):
    """One event for one webhook integration. `body` is frozen at fan-out so every attempt (and a
    manual redelivery) sends the same bytes under the same `webhook_id`."""

    __tablename__ = "webhook_delivery"
    __table_args__ = (Index("ix_webhook_delivery_due", "status", "next_attempt_at"), NEVER_REUSE_IDS)
    id: int | None = Field(default=None, primary_key=True)
    integration_id: int = Field(foreign_key="integration.id", index=True, ondelete="CASCADE")
    tenant_id: int = Field(foreign_key="tenant.id", index=True)
    webhook_id: str = Field(max_length=64, index=True)
    event_type: str = Field(max_length=64)
    body: str
    status: str = Field(default=DeliveryStatus.pending.value, max_length=16)
    attempts: int = 0
    next_attempt_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    lease_until: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    last_status_code: int | None = None
    last_error: str | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
    finished_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))


class DeliveryAttempt(SQLModel, table=True):
    __tablename__ = "delivery_attempt"
    __table_args__ = NEVER_REUSE_IDS
    id: int | None = Field(default=None, primary_key=True)
    delivery_id: int = Field(foreign_key="webhook_delivery.id", index=True, ondelete="CASCADE")
    attempt: int
    at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
    status_code: int | None = None
    error: str | None = None
    response_body: str | None = None  # the receiver's answer, truncated to 1 KB
    duration_ms: int = 0


class ObjectExport(SQLModel, table=True):
    __tablename__ = "object_export"
    __table_args__ = NEVER_REUSE_IDS
    id: int | None = Field(default=None, primary_key=True)
    tenant_id: int = Field(foreign_key="tenant.id", index=True)
    dataset_id: int = Field(foreign_key="dataset.id", index=True, ondelete="CASCADE")
    integration_id: int | None = Field(default=None, foreign_key="integration.id", ondelete="SET NULL")
    status: str = Field(default="running", max_length=16)
    formats: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    bucket: str = Field(max_length=255)
    objects: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    error: str | None = None
    created_by: int | None = Field(default=None, foreign_key="user_account.id")
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
    finished_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
