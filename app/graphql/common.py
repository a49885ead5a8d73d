"""Shared scalars, enums and small result types."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from app.core.models import ProjectRole, Role, TokenAction

RoleEnum = strawberry.enum(Role, name="Role", description="Tenant role: Tester < Manager < Admin < SuperUser")
ProjectRoleEnum = strawberry.enum(
    ProjectRole, name="ProjectRole", description="Project membership role: view < edit < owner"
)

TokenActionEnum = strawberry.enum(
    TokenAction,
    name="TokenAction",
    description="What a scoped API token may do: read (every query), upload (schemas, constraint sets, "
    "linking schemas), generate (create, start, cancel, delete datasets), download (files, download "
    "links, object-store export)",
)


@strawberry.type
class DeleteResult:
    deleted: bool
    id: int


@strawberry.type
class OkResult:
    ok: bool
    detail: str


__all__ = ["JSON", "DeleteResult", "OkResult", "ProjectRoleEnum", "RoleEnum", "TokenActionEnum"]
