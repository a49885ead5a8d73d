"""The one project-visibility rule in SQL: which projects a caller may see.

It is `authz.effective_project_role(...) is not None` written as a clause: a SuperUser sees every
project, an Admin their tenant's, a Manager the ones they created or belong to, a Tester the ones
they belong to; an API token limited to some projects, only those of them. Projects, datasets and analytics all filter through it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Select, or_, true
from sqlmodel import col, select

from app.core.models import Role
from app.core.principal import Principal
from app.core.projects.models import Project, ProjectMember


def visible_project(principal: Principal) -> ColumnElement[bool]:
    """A clause on `Project`: the caller may see this project."""
    scope = principal.scope
    if scope is not None and scope.project_ids is not None:
        # a scoped API token: only its projects, of those its owner sees
        own = _visible_to_user(principal)
        return col(Project.id).in_(sorted(scope.project_ids)) & own
    return _visible_to_user(principal)


def _visible_to_user(principal: Principal) -> ColumnElement[bool]:
    if principal.is_superuser:
        return true()
    tenant = col(Project.tenant_id) == principal.tenant_id
    if principal.role is Role.Admin:
        return tenant
    member = col(Project.id).in_(
        select(ProjectMember.project_id).where(ProjectMember.user_id == principal.user_id)
    )
    if principal.role is Role.Manager:
        return tenant & or_(col(Project.created_by) == principal.user_id, member)
    return tenant & member


def visible_project_ids(principal: Principal) -> Select[Any]:
    """The ids of the projects the caller may see, for `column.in_(...)`."""
    return select(Project.id).where(visible_project(principal))
