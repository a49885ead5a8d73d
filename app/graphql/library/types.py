"""Schema library types: schemas, constraint sets, value categories."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from app.core.clock import iso
from app.core.library import schema_problems
from app.core.library.models import ConstraintSet as ConstraintSetRow
from app.core.library.models import SchemaDoc
from app.graphql.context import Context


@strawberry.type(description="An uploaded XSD or JSON Schema.")
class Schema:
    schema_id: int
    name: str
    type: str = strawberry.field(description="json_schema or xsd")
    version: str = strawberry.field(description="JSON Schema draft (draft-04 ... 2020-12) or XSD 1.0/1.1")
    filename: str | None
    size_bytes: int
    sha256: str
    roots: list[str] = strawberry.field(
        description="Record roots: XSD global elements, or '#' and JSON Schema definitions"
    )
    default_root: str
    field_count: int
    tenant_id: int
    created_at: str
    created_by: int | None

    @strawberry.field(
        description="What the engine cannot generate for the default record root: a list of "
        "{path, reason, blocking} (blocking: no record can be generated, a dataset request is refused). "
        "schema_repr lists them for any root."
    )
    async def problems(self, info: Info[Context, None]) -> JSON:
        ctx = info.context
        return JSON(await ctx.loaders.problems_by_schema.load(self.schema_id))

    @strawberry.field(
        description="Whether records of the default root can be generated, found at upload by the same "
        "probe as `problems`: false when a blocking problem means no record can be (a dataset request "
        "is refused; `problem` says why), null when the record was too large to check before a dataset."
    )
    async def satisfiable(self, info: Info[Context, None]) -> bool | None:
        ctx = info.context
        return schema_problems.verdict(await ctx.loaders.problems_by_schema.load(self.schema_id))[0]

    @strawberry.field(
        description="Why `satisfiable` is not true: the blocking paths with their reasons, or why the "
        "record was not checked; null when satisfiable."
    )
    async def problem(self, info: Info[Context, None]) -> str | None:
        ctx = info.context
        return schema_problems.verdict(await ctx.loaders.problems_by_schema.load(self.schema_id))[1]

    @strawberry.field(description="Projects the schema is linked to.")
    async def project_ids(self, info: Info[Context, None]) -> list[int]:
        return await info.context.loaders.project_ids_by_schema.load(self.schema_id)

    @classmethod
    def from_row(cls, row: SchemaDoc) -> Schema:
        assert row.id is not None
        return cls(
            schema_id=row.id,
            name=row.name,
            type=row.type,
            version=row.version,
            filename=row.filename,
            size_bytes=row.size_bytes,
            sha256=row.sha256,
            roots=list(row.roots),
            default_root=row.default_root,
            field_count=row.field_count,
            tenant_id=row.tenant_id,
            created_at=iso(row.created_at) or "",
            created_by=row.created_by,
        )


@strawberry.type
class SchemaPage:
    items: list[Schema]
    total: int


@strawberry.type(description="Rules for value generation on a schema's fields.")
class ConstraintSet:
    constraint_id: int
    name: str
    description: str
    schema_id: int
    root: str | None
    rules: JSON
    tenant_id: int
    created_by: int | None
    created_at: str
    updated_at: str

    @classmethod
    def from_row(cls, row: ConstraintSetRow) -> ConstraintSet:
        assert row.id is not None
        return cls(
            constraint_id=row.id,
            name=row.name,
            description=row.description,
            schema_id=row.schema_id,
            root=row.root,
            rules=JSON(list(row.rules)),
            tenant_id=row.tenant_id,
            created_by=row.created_by,
            created_at=iso(row.created_at) or "",
            updated_at=iso(row.updated_at) or "",
        )


@strawberry.type
class ConstraintSetPage:
    items: list[ConstraintSet]
    total: int


@strawberry.type(description="A value category usable in a rule's `category`.")
class Category:
    name: str
    description: str
    types: list[str]
    example: str


@strawberry.type(description="A key a constraint rule takes (GET /constraints/rule-keys).")
class RuleKey:
    name: str
    description: str
    required: bool = strawberry.field(description="Every rule has it (only `path`).")
    types: list[str] = strawberry.field(
        description="The field types it applies to, as /repr names them; empty: every field."
    )
    schema: JSON = strawberry.field(
        description="The JSON Schema of its value (type, enum, minimum, maximum, exclusiveMinimum, "
        "minLength, minItems); a value outside it is refused with 422."
    )
