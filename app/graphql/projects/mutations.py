"""Root mutations of projects and their members: convert input, call one service function,
convert the result."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.datasets import service as datasets
from app.core.projects import payloads as projects_payloads
from app.core.projects import service as projects
from app.graphql.common import DeleteResult
from app.graphql.context import Context
from app.graphql.inputs import (
    MemberAddInput,
    MemberRemoveInput,
    ProjectCreateInput,
    ProjectUpdateInput,
    to_payload,
)
from app.graphql.projects.types import Project, ProjectSummary


@strawberry.type
class ProjectsMutation:
    @strawberry.mutation
    async def create_project(self, info: Info[Context, None], input: ProjectCreateInput) -> ProjectSummary:
        ctx = info.context
        project = await projects.create(ctx.session, ctx.principal, to_payload(projects_payloads.ProjectCreate, input))
        return ProjectSummary.from_row(project)

    @strawberry.mutation
    async def update_project(
        self, info: Info[Context, None], project_id: int, input: ProjectUpdateInput
    ) -> Project:
        ctx = info.context
        await projects.update(
            ctx.session, ctx.principal, project_id, to_payload(projects_payloads.ProjectUpdate, input)
        )
        return Project.from_visible(await projects.get(ctx.session, ctx.principal, project_id))

    @strawberry.mutation
    async def delete_project(self, info: Info[Context, None], project_id: int) -> DeleteResult:
        ctx = info.context
        await datasets.delete_project(ctx.session, ctx.principal, ctx.settings, project_id)
        return DeleteResult(deleted=True, id=project_id)

    @strawberry.mutation
    async def add_project_member(
        self, info: Info[Context, None], project_id: int, input: MemberAddInput
    ) -> Project:
        ctx = info.context
        await projects.add_member(
            ctx.session, ctx.principal, project_id, to_payload(projects_payloads.MemberAdd, input)
        )
        return Project.from_visible(await projects.get(ctx.session, ctx.principal, project_id))

    @strawberry.mutation
    async def remove_project_member(
        self, info: Info[Context, None], project_id: int, input: MemberRemoveInput
    ) -> Project:
        ctx = info.context
        await projects.remove_member(
            ctx.session, ctx.principal, project_id, to_payload(projects_payloads.MemberRemove, input)
        )
        return Project.from_visible(await projects.get(ctx.session, ctx.principal, project_id))
