"""Root mutations of the schema library."""

from __future__ import annotations

import strawberry
from strawberry.types import Info

from app.core.library import constraint_sets as constraints
from app.core.library import payloads as library_payloads
from app.core.library import schemas
from app.core.projects import service as projects
from app.graphql.common import DeleteResult
from app.graphql.context import Context
from app.graphql.inputs import (
    ConstraintSetCreateInput,
    ConstraintSetUpdateInput,
    SchemaLinkInput,
    SchemaUploadInput,
    to_payload,
)
from app.graphql.library.types import ConstraintSet, Schema
from app.graphql.projects.types import Project


@strawberry.type
class LibraryMutation:
    @strawberry.mutation(
        description="Upload a schema: `content` as text, or `content_base64` for a .zip of XSDs."
    )
    async def upload_schema(self, info: Info[Context, None], input: SchemaUploadInput) -> Schema:
        ctx = info.context
        doc = await schemas.upload(
            ctx.session, ctx.principal, ctx.settings, to_payload(library_payloads.SchemaUpload, input)
        )
        return Schema.from_row(doc)

    @strawberry.mutation
    async def delete_schema(self, info: Info[Context, None], schema_id: int) -> DeleteResult:
        ctx = info.context
        await schemas.delete(ctx.session, ctx.principal, schema_id)
        return DeleteResult(deleted=True, id=schema_id)

    @strawberry.mutation(description="Link a schema of the tenant to a project.")
    async def add_project_schema(
        self, info: Info[Context, None], project_id: int, input: SchemaLinkInput
    ) -> Project:
        ctx = info.context
        await schemas.link(ctx.session, ctx.principal, project_id, to_payload(library_payloads.SchemaLink, input))
        return Project.from_visible(await projects.get(ctx.session, ctx.principal, project_id))

    @strawberry.mutation
    async def create_constraint_set(
        self, info: Info[Context, None], input: ConstraintSetCreateInput
    ) -> ConstraintSet:
        ctx = info.context
        data = to_payload(library_payloads.ConstraintSetCreate, input)
        return ConstraintSet.from_row(
            await constraints.create(ctx.session, ctx.principal, ctx.settings, data)
        )

    @strawberry.mutation
    async def update_constraint_set(
        self, info: Info[Context, None], constraint_id: int, input: ConstraintSetUpdateInput
    ) -> ConstraintSet:
        ctx = info.context
        data = to_payload(library_payloads.ConstraintSetUpdate, input)
        return ConstraintSet.from_row(
            await constraints.update(ctx.session, ctx.principal, ctx.settings, constraint_id, data)
        )

    @strawberry.mutation
    async def delete_constraint_set(self, info: Info[Context, None], constraint_id: int) -> DeleteResult:
        ctx = info.context
        await constraints.delete(ctx.session, ctx.principal, constraint_id)
        return DeleteResult(deleted=True, id=constraint_id)
