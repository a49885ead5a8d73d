"""Shared scalars, enums and small result types."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from app.core.models import ProjectRole, Role

RoleEnum = strawberry.enum(Role, name="Role", description="Tenant role: Tester < Manager < Admin < SuperUser")
ProjectRoleEnum = strawberry.enum(
    ProjectRole, name="ProjectRole", description="Project membership role: view < edit < owner"
)


@strawberry.type
class DeleteResult:
    deleted: bool
    id: int


@strawberry.type
class OkResult:
    ok: bool
    detail: str


__all__ = ["JSON", "DeleteResult", "OkResult", "ProjectRoleEnum", "RoleEnum"]
