"""Root query fields of datasets and notifications."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.datasets import service as datasets
from app.core.notifications import service as notifications
from app.graphql.context import Context
from app.graphql.datasets.types import Dataset, DatasetPage, Notification, NotificationPage, UnreadCount
from app.graphql.paging import DEFAULT_LIMIT, check_page


@strawberry.type
class DatasetQuery:
    @strawberry.field(description="Datasets of the projects the caller may see, newest first.")
    async def datasets(
        self,
        info: Info[Context, None],
        project_id: int | None = None,
        status: str | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> DatasetPage:
        ctx = info.context
        limit, offset = check_page(limit, offset)
        rows, total = await datasets.list_visible(
            ctx.session, ctx.principal, project_id=project_id, status=status, limit=limit, offset=offset
        )
        return DatasetPage(items=[Dataset.from_row(r) for r in rows], total=total)

    @strawberry.field
    async def dataset(self, info: Info[Context, None], dataset_id: int) -> Dataset:
        ctx = info.context
        # the files with the row: one query instead of a second one through the loader
        row, files = await datasets.get_with_files(ctx.session, ctx.principal, dataset_id)
        return Dataset.from_row(row, files)

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
