"""Root mutations of datasets."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.datasets import payloads as dataset_payloads
from app.core.datasets import service as datasets
from app.graphql.context import Context
from app.graphql.datasets.types import Dataset
from app.graphql.inputs import DatasetCreateInput, to_payload


def _wake(ctx: Context) -> None:
    if ctx.services is not None:
        ctx.services.dispatcher.wake()


@strawberry.type
class DatasetMutation:
    @strawberry.mutation(description="Create a dataset; generation starts unless params.deferred is true.")
    async def create_dataset(self, info: Info[Context, None], input: DatasetCreateInput) -> Dataset:
        ctx = info.context
        row = await datasets.create(
            ctx.session, ctx.principal, ctx.settings, to_payload(dataset_payloads.DatasetCreate, input)
        )
        ctx.after_commit(lambda: _wake(ctx))
        return Dataset.from_row(row)

    @strawberry.mutation(
        description="Generate a dataset again: a new dataset with the same project, schema, record count, "
        "formats, params (seed included) and the rules that dataset recorded (not its constraint set's "
        "current ones), so its records are the same. name: by default the source's with ' (again)'."
    )
    async def generate_again(
        self, info: Info[Context, None], dataset_id: int, name: str | None = None
    ) -> Dataset:
        ctx = info.context
        row = await datasets.again(ctx.session, ctx.principal, ctx.settings, dataset_id, name)
        ctx.after_commit(lambda: _wake(ctx))
        return Dataset.from_row(row)

    @strawberry.mutation(description="Start a queued (deferred) dataset; idempotent; 409 in any other state.")
    async def start_dataset(self, info: Info[Context, None], dataset_id: int) -> Dataset:
        ctx = info.context
        row = await datasets.start(ctx.session, ctx.principal, dataset_id)
        ctx.after_commit(lambda: _wake(ctx))
        return Dataset.from_row(row)

    @strawberry.mutation(
        description="Cancel a queued or running dataset, or delete a finished one; files are removed."
    )
    async def delete_dataset(self, info: Info[Context, None], dataset_id: int) -> Dataset:
        ctx = info.context
        return Dataset.from_row(await datasets.delete(ctx.session, ctx.principal, ctx.settings, dataset_id))
