"""Root mutations: convert input, call one service function, convert the result."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.projects import payloads as projects_payloads
from app.core.projects import service as projects
from app.core.tenants import payloads as tenants_payloads
from app.core.tenants import service as tenants
from app.core.users import service as users
from app.graphql.common import DeleteResult
from app.graphql.context import Context
from app.graphql.inputs import (
    MemberAddInput,
    MemberRemoveInput,
    ProjectCreateInput,
    ProjectUpdateInput,
    TenantCreateInput,
    TenantUpdateInput,
    to_payload,
)
from app.graphql.projects.types import Project, ProjectSummary
from app.graphql.types.tenants import Tenant, TenantCreated
from app.graphql.users.types import User, UserCreated


def _created(c: users.CreatedUser) -> UserCreated:
    base = User.from_row(c.user)
    return UserCreated(**vars(base), invitation_token=c.invitation_token, invitation_url=c.invitation_url)


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def create_tenant(self, info: Info[Context, None], input: TenantCreateInput) -> TenantCreated:
        ctx = info.context
        tenant, admin = await tenants.create(
            ctx.session, ctx.principal, to_payload(tenants_payloads.TenantCreate, input)
        )
        assert admin.id is not None
        return TenantCreated(
            **vars(Tenant.from_row(tenant)), admin_user_id=admin.id, admin_username=admin.username
        )

    @strawberry.mutation
    async def update_tenant(
        self, info: Info[Context, None], tenant_id: int, input: TenantUpdateInput
    ) -> Tenant:
        ctx = info.context
        data = to_payload(tenants_payloads.TenantUpdate, input)
        return Tenant.from_row(await tenants.update(ctx.session, ctx.principal, tenant_id, data))

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
        await projects.delete(ctx.session, ctx.principal, project_id, settings=ctx.settings)
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
