"""Shared scalars, enums and small result types."""

from __future__ import annotations

from enum import Enum
from types import GenericAlias
from typing import cast

import strawberry
from strawberry.scalars import JSON

from app.core.models import ProjectRole, Role, TokenAction
from app.generation.output_formats import FORMAT_NAMES, spoken

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

# the one list of output formats (app/generation/output_formats.py) as a GraphQL enum, so clients'
# generated types carry it (the web's format choices are derived from it)
# (the functional Enum call makes a class; mypy reads a dynamic one as an instance, hence the cast)
_OutputFormat = cast("type[Enum]", Enum("OutputFormat", {name: name for name in FORMAT_NAMES}))
OutputFormatEnum = strawberry.enum(
    _OutputFormat,
    name="OutputFormat",
    description=f"An output format a dataset is written in: {spoken()}",
)
# [OutputFormat!]! for a field's graphql_type (written out, since mypy takes list[...] of a variable
# for a type annotation)
OutputFormatList = GenericAlias(list, (OutputFormatEnum,))


@strawberry.type
class DeleteResult:
    deleted: bool
    id: int


@strawberry.type
class OkResult:
    ok: bool
    detail: str


__all__ = ["JSON", "DeleteResult", "OkResult", "ProjectRoleEnum", "RoleEnum", "TokenActionEnum"]
