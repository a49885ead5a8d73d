"""Root subscription fields, served over a WebSocket at /graphql (graphql-transport-ws, also the
older graphql-ws). Each stream polls the database about once a second, every poll in its own
short session that also re-authenticates the connection's token."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Iterator

import strawberry
from strawberry.extensions import SchemaExtension
from strawberry.types import Info
from strawberry.types.graphql import OperationType

from app.core.datasets import updates as dataset_updates
from app.core.datasets.updates import DatasetWatch
from app.core.errors import BadRequest
from app.graphql.context import LiveContext
from app.graphql.datasets.types import Dataset

POLL_SECONDS = 1.0


class SocketOperations(SchemaExtension):
    """Over a WebSocket only subscriptions run: its context has no session for a query or mutation."""

    def on_execute(self) -> Iterator[None]:
        ctx = self.execution_context
        if isinstance(ctx.context, LiveContext) and ctx.operation_type is not OperationType.SUBSCRIPTION:
            raise BadRequest(
                "Only subscriptions are served over the WebSocket; send queries and mutations "
                "to POST /graphql."
            )
        yield


def _live(context: object) -> LiveContext:
    if not isinstance(context, LiveContext):
        raise BadRequest("Subscriptions are served over a WebSocket at /graphql (graphql-transport-ws).")
    return context


async def _poll(ctx: LiveContext, watch: DatasetWatch) -> list[Dataset]:
    async with ctx.sessionmaker() as session:
        principal = await ctx.authenticate(session)
        changes = await dataset_updates.poll(session, principal, watch)
        out = [Dataset.from_row(c.dataset, c.files, c.rights) for c in changes]
        await session.commit()  # an API token's last_used_at, at most once a minute
    return out


async def _follow(
    ctx: LiveContext, watch: DatasetWatch, first: list[Dataset]
) -> AsyncGenerator[Dataset, None]:
    pending = first
    while True:
        for dataset in pending:
            yield dataset
        if watch.finished:
            return
        await asyncio.sleep(POLL_SECONDS)
        pending = await _poll(ctx, watch)


@strawberry.type
class Subscription:
    @strawberry.subscription(
        description=(
            "Datasets of the caller's visible projects as they change (status, progress, records_generated, files); "
            "with dataset_id only that one, with project_id only that project's. Each changed dataset is sent once "
            "per change; the stream for one dataset_id ends after it reaches completed, failed, cancelled or expired."
        )
    )
    async def dataset_updates(
        self,
        info: Info[LiveContext, None],
        dataset_id: int | None = None,
        project_id: int | None = None,
    ) -> AsyncGenerator[Dataset, None]:
        ctx = _live(info.context)
        watch = DatasetWatch(dataset_id=dataset_id, project_id=project_id)
        # the first poll runs before the stream starts: NOT_FOUND is the subscription's error message
        first = await _poll(ctx, watch)
        return _follow(ctx, watch, first)
