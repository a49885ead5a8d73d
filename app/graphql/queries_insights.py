"""Root query fields of the web interface's insights: record previews and generation analytics."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from app.core.analytics import service as analytics
from app.core.analytics.service import AnalyticsPeriod
from app.core.datasets import coverage
from app.core.datasets import preview as previews
from app.graphql.context import Context
from app.graphql.types.insights import Analytics, Preview  # (and registers the GraphQL enum AnalyticsPeriod)


@strawberry.type
class InsightsQuery:
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

    @strawberry.field(
        description="Generation statistics over a period, for the datasets the caller may see "
        "(optionally one project)."
    )
    async def analytics(
        self,
        info: Info[Context, None],
        period: AnalyticsPeriod = AnalyticsPeriod.LAST_30_DAYS,
        project_id: int | None = None,
    ) -> Analytics:
        ctx = info.context
        report = await analytics.report(ctx.session, ctx.principal, period=period, project_id=project_id)
        return Analytics.from_report(report)
