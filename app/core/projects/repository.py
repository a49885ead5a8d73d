"""Projects and memberships, filtered by tenant AND by the caller's visibility."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy import ColumnElement, cast, exists, func, literal, literal_column
from sqlalchemy.dialects.postgresql import JSONB
from sqlmodel import col
from sqlmodel.sql.expression import Select

from app.core.authz import effective_project_role
from app.core.error_codes import ErrorCode
from app.core.errors import NotFound
from app.core.library.models import ProjectSchema
from app.core.models import ProjectRole
from app.core.projects.models import Project, ProjectMember
from app.core.repositories.base import ScopedRepository
from app.core.repositories.text_match import contains_folded
from app.core.repositories.visibility import visible_project


@dataclass(frozen=True, slots=True)
class VisibleProject:
    project: Project
    role: ProjectRole  # the caller's effective project role


class ProjectListing(Protocol):
    """A project as a page of the list reads it: a `Project` row, or the row of its columns that
    `ProjectRepository.list` selects (no ORM object per project: 50 of them were a tenth of a
    GET /projects)."""

    @property
    def id(self) -> int | None: ...
    @property
    def tenant_id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def tags(self) -> builtins.list[str]: ...
    @property
    def created_by(self) -> int | None: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def updated_at(self) -> datetime: ...


_LISTED = (
    col(Project.id),
    col(Project.tenant_id),
    col(Project.name),
    col(Project.description),
    col(Project.tags),
    col(Project.created_by),
    col(Project.created_at),
    col(Project.updated_at),
)


class ProjectRepository(ScopedRepository):
    def _has_tag(self, tag: str) -> ColumnElement[bool]:
        """JSON array membership in SQL: jsonb containment on PostgreSQL, json_each on SQLite."""
        if self.dialect_name() == "postgresql":
            return cast(Project.tags, JSONB).contains([tag])
        member = self.unscoped(literal(1)).select_from(func.json_each(Project.tags).table_valued("value"))
        return exists(member.where(literal_column("value") == tag))

    async def get(self, project_id: int) -> VisibleProject:
        """The project if the caller may see it, else NotFound (never Forbidden: no existence leak)."""
        project = await self.session.get(Project, project_id)
        role = None
        if project is not None:
            # the rule of `visible_project`, in Python, since the caller's role is wanted too
            membership = await self.session.get(ProjectMember, (project_id, self.principal.user_id))
            role = effective_project_role(
                self.principal,
                project_id=project_id,
                project_tenant_id=project.tenant_id,
                created_by=project.created_by,
                membership=ProjectRole(membership.role) if membership else None,
            )
        if project is None or role is None:
            raise NotFound(f"Project {project_id} was not found.", code=ErrorCode.PROJECT_NOT_FOUND)
        return VisibleProject(project, role)

    def _listed(self) -> Select[*tuple[Any, ...]]:
        return self.select(*_LISTED, scope=Project).where(visible_project(self.principal))

    async def list(
        self, *, tenant_id: int | None, tag: str | None, q: str | None, limit: int, offset: int
    ) -> tuple[builtins.list[ProjectListing], int]:
        if tenant_id is None and not q and not tag:
            # the unfiltered list, which clients poll: its statements are built once per caller
            return await self.paginate_per_caller(
                "projects", lambda: self._listed().order_by(col(Project.id)), limit, offset
            )
        stmt = self._listed()
        if tenant_id is not None:
            stmt = stmt.where(Project.tenant_id == tenant_id)
        if q:
            stmt = stmt.where(contains_folded(Project.name, q))
        if tag:
            stmt = stmt.where(self._has_tag(tag))
        return await self.paginate(stmt.order_by(col(Project.id)), limit, offset)

    async def visible_for_user(self, user_ids: Sequence[int]) -> dict[int, builtins.list[Project]]:
        """Projects each user belongs to (or created), restricted to what the caller may see."""
        stmt = (
            self.select(ProjectMember.user_id, Project, scope=Project)
            .join(Project, col(Project.id) == ProjectMember.project_id)
            .where(col(ProjectMember.user_id).in_(user_ids), visible_project(self.principal))
        )
        created = self.select(Project).where(
            col(Project.created_by).in_(user_ids), visible_project(self.principal)
        )
        out: dict[int, dict[int, Project]] = {uid: {} for uid in user_ids}
        for uid, project in (await self.session.exec(stmt)).all():
            out[uid][project.id] = project
        for project in (await self.session.exec(created)).all():
            # always set: `created_by` matched `user_ids`, and a stored row has its id
            if project.created_by is not None and project.id is not None:
                out[project.created_by][project.id] = project
        return {uid: sorted(d.values(), key=lambda p: p.id or 0) for uid, d in out.items()}

    async def roles(self, project_ids: Sequence[int]) -> dict[int, ProjectRole]:
        """The caller's effective role on each of these projects they may see, in one statement
        (the rule of `get`, for the rows of a page of datasets)."""
        mine = (col(ProjectMember.project_id) == Project.id) & (
            col(ProjectMember.user_id) == self.principal.user_id
        )
        stmt = (
            self.select(Project.id, Project.tenant_id, Project.created_by, ProjectMember.role, scope=Project)
            .outerjoin(ProjectMember, mine)
            .where(col(Project.id).in_(project_ids))
        )
        out: dict[int, ProjectRole] = {}
        for project_id, tenant_id, created_by, membership in (await self.session.exec(stmt)).all():
            role = effective_project_role(
                self.principal,
                project_id=project_id,
                project_tenant_id=tenant_id,
                created_by=created_by,
                membership=ProjectRole(membership) if membership else None,
            )
            if role is not None:
                out[project_id] = role
        return out

    async def members_of(self, project_ids: Sequence[int]) -> builtins.list[ProjectMember]:
        """Members of projects the caller already resolved as visible (ids come from `get`/`list`)."""
        stmt = (
            self.select(ProjectMember, scope=Project)
            .join(Project, col(Project.id) == ProjectMember.project_id)
            .where(col(ProjectMember.project_id).in_(project_ids))
            .order_by(col(ProjectMember.project_id), col(ProjectMember.added_at), col(ProjectMember.user_id))
        )
        return list((await self.session.exec(stmt)).all())

    async def membership(self, project_id: int, user_id: int) -> ProjectMember | None:
        return await self.session.get(ProjectMember, (project_id, user_id))

    async def delete_memberships(self, project_id: int) -> None:
        await self.session.exec(self.delete_where(ProjectMember, col(ProjectMember.project_id) == project_id))

    async def delete_schema_links(self, project_id: int) -> None:
        await self.session.exec(self.delete_where(ProjectSchema, col(ProjectSchema.project_id) == project_id))
