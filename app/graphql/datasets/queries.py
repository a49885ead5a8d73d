"""Root query fields of datasets."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.datasets import service as datasets
from app.graphql.context import Context
from app.graphql.datasets.types import Dataset, DatasetPage
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
