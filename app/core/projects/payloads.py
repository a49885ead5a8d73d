"""What a client sends to create or change a project and its members."""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    Field,
    StringConstraints,
)

from app.core.models import ProjectRole
from app.core.payloads import Id, Name, Strict, Tag, Update


class ProjectCreate(Strict):
    name: Name
    description: Annotated[str, StringConstraints(max_length=5000)] = ""
    tags: Annotated[list[Tag], Field(max_length=50)] = []
    tenant_id: Id | None = Field(default=None, description="SuperUser only: create in another tenant")


class ProjectUpdate(Update):
    name: Name | None = None
    description: Annotated[str, StringConstraints(max_length=5000)] | None = None
    tags: Annotated[list[Tag], Field(max_length=50)] | None = None


class MemberAdd(Strict):
    user_id: Id
    role: ProjectRole = Field(default=ProjectRole.view, strict=False)


class MemberRemove(Strict):
    user_id: Id
