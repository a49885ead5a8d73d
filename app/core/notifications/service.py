"""In-app notifications of the current user."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.authz import Action, require
from app.core.models import utcnow
from app.core.notifications.models import Notification
from app.core.notifications.repository import NotificationRepository
from app.core.principal import Principal


async def list_own(
    session: AsyncSession, principal: Principal, *, unread_only: bool, limit: int, offset: int
) -> tuple[list[Notification], int]:
    return await NotificationRepository(session, principal).list(
        unread_only=unread_only, limit=limit, offset=offset
    )


async def unread_count(session: AsyncSession, principal: Principal) -> int:
    return await NotificationRepository(session, principal).unread_count()


async def mark_read(session: AsyncSession, principal: Principal, notification_id: int) -> Notification:
    require(principal, Action.ACCOUNT_UPDATE)
    row = await NotificationRepository(session, principal).get(notification_id)
    if row.read_at is None:
        row.read_at = utcnow()
    return row
