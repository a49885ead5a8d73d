"""Root mutations of the caller's notifications."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.notifications import service as notifications
from app.graphql.context import Context
from app.graphql.notifications.types import Notification


@strawberry.type
class NotificationsMutation:
    @strawberry.mutation(description="Mark a notification read.")
    async def mark_notification_read(self, info: Info[Context, None], notification_id: int) -> Notification:
        ctx = info.context
        return Notification.from_row(
            await notifications.mark_read(ctx.session, ctx.principal, notification_id)
        )
