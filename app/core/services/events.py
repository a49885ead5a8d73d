"""Domain events, written to the outbox table in the same transaction as their cause.
Delivery (webhooks) reads the outbox; recording never waits on delivery."""

from __future__ import annotations

import uuid
from typing import Any

from sqlmodel import Session
from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.models import DomainEvent, utcnow

EVENT_TYPES = ("dataset.completed", "dataset.failed", "schema.uploaded", "project.created", "ping")


def record(
    session: AsyncSession | Session, type_: str, *, tenant_id: int | None, data: dict[str, Any]
) -> DomainEvent:
    if type_ not in EVENT_TYPES:
        raise ValueError(f"unknown event type {type_}")
    event = DomainEvent(
        id="evt_" + uuid.uuid4().hex, type=type_, tenant_id=tenant_id, created_at=utcnow(), data=data
    )
    session.add(event)
    return event
