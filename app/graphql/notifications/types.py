"""Notification types."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from app.core.clock import iso
from app.core.notifications.models import Notification as NotificationRow


@strawberry.type
class Notification:
    notification_id: int
    type: str
    title: str
    message: str
    data: JSON
    created_at: str
    read_at: str | None
    is_read: bool

    @classmethod
    def from_row(cls, row: NotificationRow) -> Notification:
        assert row.id is not None
        return cls(
            notification_id=row.id,
            type=row.type,
            title=row.title,
            message=row.message,
            data=JSON(dict(row.data)),
            created_at=iso(row.created_at) or "",
            read_at=iso(row.read_at),
            is_read=row.read_at is not None,
        )


@strawberry.type
class NotificationPage:
    items: list[Notification]
    total: int


@strawberry.type
class UnreadCount:
    count: int
