"""The integration tables: integrations, webhook deliveries and their attempts, object exports."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, Column, DateTime, Index
from sqlmodel import Field, SQLModel

from app.core.models import NEVER_REUSE_IDS, utcnow


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
