"""Root query fields of the caller's notifications."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.notifications import service as notifications
from app.graphql.context import Context
from app.graphql.notifications.types import Notification, NotificationPage, UnreadCount
from app.graphql.paging import DEFAULT_LIMIT, check_page


@strawberry.type
class NotificationsQuery:
    @strawberry.field(description="The caller's notifications, newest first.")
    async def notifications(
        self,
        info: Info[Context, None],
        unread_only: bool = False,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> NotificationPage:
        ctx = info.context
        limit, offset = check_page(limit, offset)
        rows, total = await notifications.list_own(
            ctx.session, ctx.principal, unread_only=unread_only, limit=limit, offset=offset
        )
        return NotificationPage(items=[Notification.from_row(r) for r in rows], total=total)

    @strawberry.field
    async def unread_notification_count(self, info: Info[Context, None]) -> UnreadCount:
        ctx = info.context
        return UnreadCount(count=await notifications.unread_count(ctx.session, ctx.principal))
