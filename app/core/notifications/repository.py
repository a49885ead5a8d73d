"""Notifications, only ever the caller's own."""

from __future__ import annotations

import builtins

from sqlalchemy import func
from sqlmodel import col

from app.core.models import utcnow
from app.core.notifications.models import Notification
from app.core.repositories.base import ScopedRepository


class NotificationRepository(ScopedRepository):
    """Only ever the caller's own notifications."""

    async def list(
        self, *, unread_only: bool, limit: int, offset: int
    ) -> tuple[builtins.list[Notification], int]:
        stmt = self.select(Notification)
        if unread_only:
            stmt = stmt.where(col(Notification.read_at).is_(None))
        return await self.paginate(stmt.order_by(col(Notification.id).desc()), limit, offset)

    async def get(self, notification_id: int) -> Notification:
        return await self.get_owned(Notification, notification_id)

    async def unread_count(self) -> int:
        stmt = self.select(func.count(), scope=Notification).where(col(Notification.read_at).is_(None))
        return int((await self.session.exec(stmt)).one())

    async def mark_all_read(self) -> None:
        await self.session.exec(
            self.update(Notification).where(col(Notification.read_at).is_(None)).values(read_at=utcnow())
        )
