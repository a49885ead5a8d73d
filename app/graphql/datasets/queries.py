"""Root query fields of datasets, and of what a dataset would hold before it is created (preview,
coverage plan): DatasetPlanQuery is a class of its own since the root fields keep their
published order (docs/schema.graphql)."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from app.core.datasets import coverage
from app.core.datasets import preview as previews
from app.core.datasets import service as datasets
from app.graphql.context import Context
from app.graphql.datasets.types import Dataset, DatasetPage, Preview
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


@strawberry.type
class DatasetPlanQuery:
    @strawberry.field(
        description="The first `count` records (1-100) of a schema with an optional constraint set "
        "and params, rendered in `format`; nothing is stored. `rules` (a list of rule objects) "
        "applies unsaved rules instead of the constraint set's, whose root still applies."
    )
    async def preview(
        self,
        info: Info[Context, None],
        schema_id: int,
        constraint_set_id: int | None = None,
        params: JSON | None = None,
        count: int = 10,
        format: str = "json",
        rules: JSON | None = None,
    ) -> Preview:
        ctx = info.context
        result = await previews.preview(
            ctx.session,
            ctx.principal,
            ctx.settings,
            schema_id,
            constraint_set_id=constraint_set_id,
            params=params,
            count=count,
            fmt=format,
            rules=rules,
        )
        return Preview.from_result(result)

    @strawberry.field(
        description="The coverage set (mode `each` or `pairwise`) a dataset of this schema, "
        "constraint set and params would start with, before creating it: {mode, records (the "
        "set's size: the least record_count), total, covered, targets [{pointer, kind, value, "
        "record, reason?}], seed}. Nothing is stored."
    )
    async def coverage_plan(
        self,
        info: Info[Context, None],
        schema_id: int,
        constraint_set_id: int | None = None,
        mode: str = "each",
        params: JSON | None = None,
    ) -> JSON:
        ctx = info.context
        report = await coverage.plan(
            ctx.session,
            ctx.principal,
            ctx.settings,
            schema_id,
            constraint_set_id=constraint_set_id,
            mode=mode,
            params=params,
        )
        return JSON(report)
