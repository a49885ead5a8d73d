"""Root query fields of projects."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.projects import service as projects
from app.graphql.context import Context
from app.graphql.paging import DEFAULT_LIMIT, check_page
from app.graphql.projects.types import Project, ProjectPage, ProjectSummary


@strawberry.type
class ProjectsQuery:
    @strawberry.field(description="Projects the caller may see.")
    async def projects(
        self,
        info: Info[Context, None],
        q: str | None = None,
        tag: str | None = None,
        tenant_id: int | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> ProjectPage:
        ctx = info.context
        limit, offset = check_page(limit, offset)
        rows, total = await projects.list_visible(
            ctx.session, ctx.principal, tenant_id=tenant_id, tag=tag, q=q, limit=limit, offset=offset
        )
        return ProjectPage(items=[ProjectSummary.from_row(r) for r in rows], total=total)

    @strawberry.field
    async def project(self, info: Info[Context, None], project_id: int) -> Project:
        ctx = info.context
        return Project.from_visible(await projects.get(ctx.session, ctx.principal, project_id))
