"""Project and membership types."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.clock import iso
from app.core.models import ProjectRole, Role
from app.core.projects.models import ProjectMember as MemberRow
from app.core.projects.repository import ProjectListing, VisibleProject
from app.core.users.models import User as UserRow
from app.graphql.context import Context
from app.graphql.datasets.types import Dataset
from app.graphql.library.types import Schema


@strawberry.type(description="The user side of a project membership.")
class MemberUser:
    id: int
    username: str
    display_name: str | None
    email: str | None
    role: Role


@strawberry.type(description="A project member: a user and their project role.")
class ProjectMember:
    user_id: int
    role: ProjectRole
    added_at: str
    added_by: int | None
    user: MemberUser | None

    @classmethod
    def from_row(cls, row: MemberRow, user: UserRow | None) -> ProjectMember:
        member_user = None
        if user is not None:
            member_user = MemberUser(
                id=row.user_id,
                username=user.username,
                display_name=user.display_name,
                email=user.email,
                role=Role(user.role),
            )
        return cls(
            user_id=row.user_id,
            role=ProjectRole(row.role),
            added_at=iso(row.added_at) or "",
            added_by=row.added_by,
            user=member_user,
        )


@strawberry.type(description="A project as listed.")
class ProjectSummary:
    project_id: int
    name: str
    description: str
    tags: list[str]
    tenant_id: int
    created_by: int | None
    created_at: str
    updated_at: str

    @strawberry.field(description="The name of the project's tenant (SuperUsers list projects of every tenant).")
    async def tenant_name(self, info: Info[Context, None]) -> str:
        return await info.context.loaders.tenant_name.load(self.tenant_id)

    @classmethod
    def from_row(cls, row: ProjectListing) -> ProjectSummary:
        assert row.id is not None
        return cls(
            project_id=row.id,
            name=row.name,
            description=row.description,
            tags=list(row.tags or []),
            tenant_id=row.tenant_id,
            created_by=row.created_by,
            created_at=iso(row.created_at) or "",
            updated_at=iso(row.updated_at) or "",
        )


@strawberry.type(description="A project with its members, linked schemas and datasets.")
class Project(ProjectSummary):
    my_role: ProjectRole

    @strawberry.field
    async def members(self, info: Info[Context, None]) -> list[ProjectMember]:
        rows = await info.context.loaders.members_by_project.load(self.project_id)
        # users batched here, not per member: one awaitable instead of one per row
        users = await info.context.loaders.user_by_id.load_many([r.user_id for r in rows])
        return [ProjectMember.from_row(r, u) for r, u in zip(rows, users, strict=True)]

    @strawberry.field(description="Schemas linked to the project.")
    async def schemas(self, info: Info[Context, None]) -> list[Schema]:
        rows = await info.context.loaders.schemas_by_project.load(self.project_id)
        return [Schema.from_row(r) for r in rows]

    @strawberry.field(description="Datasets of the project, newest first.")
    async def datasets(self, info: Info[Context, None]) -> list[Dataset]:
        rows = await info.context.loaders.datasets_by_project.load(self.project_id)
        return [Dataset.from_row(r) for r in rows]

    @classmethod
    def from_visible(cls, visible: VisibleProject) -> Project:
        base = ProjectSummary.from_row(visible.project)
        return cls(**vars(base), my_role=visible.role)


@strawberry.type
class ProjectPage:
    items: list[ProjectSummary]
    total: int
