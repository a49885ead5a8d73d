"""Root query fields of the schema library."""

from __future__ import annotations

from typing import Annotated

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from app.core.library import constraint_sets as constraints
from app.core.library import schemas
from app.graphql.context import Context
from app.graphql.library.types import Category, ConstraintSet, ConstraintSetPage, RuleKey, Schema, SchemaPage
from app.graphql.paging import DEFAULT_LIMIT, check_page


@strawberry.type
class LibraryQuery:
    @strawberry.field(description="Schemas of the caller's tenant.")
    async def schemas(
        self,
        info: Info[Context, None],
        project_id: int | None = None,
        q: str | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> SchemaPage:
        ctx = info.context
        limit, offset = check_page(limit, offset)
        rows, total = await schemas.list_visible(
            ctx.session, ctx.principal, project_id=project_id, q=q, limit=limit, offset=offset
        )
        return SchemaPage(items=[Schema.from_row(r) for r in rows], total=total)

    @strawberry.field
    async def schema(self, info: Info[Context, None], schema_id: int) -> Schema:
        ctx = info.context
        return Schema.from_row(await schemas.get(ctx.session, ctx.principal, schema_id))

    @strawberry.field(description="The field tree used to build constraints; `root` picks the record root.")
    async def schema_repr(
        self,
        info: Info[Context, None],
        schema_id: int,
        record_root: Annotated[str | None, strawberry.argument(name="root")] = None,
    ) -> JSON:
        ctx = info.context
        return JSON(
            await schemas.representation(ctx.session, ctx.principal, ctx.settings, schema_id, record_root)
        )

    @strawberry.field
    async def constraint_sets(
        self,
        info: Info[Context, None],
        schema_id: int | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
    ) -> ConstraintSetPage:
        ctx = info.context
        limit, offset = check_page(limit, offset)
        rows, total = await constraints.list_visible(
            ctx.session, ctx.principal, schema_id=schema_id, limit=limit, offset=offset
        )
        return ConstraintSetPage(items=[ConstraintSet.from_row(r) for r in rows], total=total)

    @strawberry.field
    async def constraint_set(self, info: Info[Context, None], constraint_id: int) -> ConstraintSet:
        ctx = info.context
        return ConstraintSet.from_row(await constraints.get(ctx.session, ctx.principal, constraint_id))

    @strawberry.field(description="Value categories usable in constraint rules.")
    async def constraint_categories(self, info: Info[Context, None]) -> list[Category]:
        info.context.principal  # noqa: B018  (authenticated callers only)
        return [Category(**c) for c in constraints.categories()]

    @strawberry.field(description="Every key a constraint rule takes: its value's JSON Schema, what it does.")
    async def constraint_rule_keys(self, info: Info[Context, None]) -> list[RuleKey]:
        info.context.principal  # noqa: B018  (authenticated callers only)
        return [
            RuleKey(
                name=k["name"],
                description=k["description"],
                required=k["required"],
                types=k["types"],
                schema=JSON(k["schema"]),
            )
            for k in constraints.rule_keys()
        ]
