"""Root query fields of analytics: generation statistics."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.analytics import service as analytics
from app.core.analytics.service import AnalyticsPeriod
from app.graphql.analytics.types import Analytics  # (and registers the GraphQL enum AnalyticsPeriod)
from app.graphql.context import Context


@strawberry.type
class AnalyticsQuery:
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
