"""Dataset, dataset file and preview types."""

from __future__ import annotations

from dataclasses import asdict

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from app.core.clock import iso
from app.core.datasets.models import Dataset as DatasetRow
from app.core.datasets.models import DatasetFile as DatasetFileRow
from app.core.datasets.preview import PreviewResult
from app.core.datasets.service import DatasetRights as DatasetRightsRow
from app.core.datasets.service import rights_on
from app.core.jobs.plans import invalid_records
from app.generation.output_formats import spoken
from app.graphql.common import OutputFormatList
from app.graphql.context import Context


@strawberry.type(
    description="A generated file; download it from /api/v1/data/{dataset_id}?format=&file_index=."
)
class DatasetFile:
    format: str
    file_index: int
    records: int
    size_bytes: int
    sha256: str

    @classmethod
    def from_row(cls, row: DatasetFileRow) -> DatasetFile:
        return cls(
            format=row.format,
            file_index=row.file_index,
            records=row.records,
            size_bytes=row.size_bytes,
            sha256=row.sha256,
        )


@strawberry.type(
    description="What the caller may do to one dataset (`Dataset.viewer_can`), by authorization alone: "
    "its creator (with project role edit), the project's owners and Managers and up may start, cancel and "
    "delete it (authz actions dataset.start, dataset.cancel, dataset.delete; an API token also needs its "
    "scope to allow it). The status decides which applies: start a queued dataset, cancel a queued or "
    "running one, delete any other."
)
class DatasetRights:
    start: bool
    cancel: bool
    delete: bool

    @classmethod
    def from_row(cls, row: DatasetRightsRow) -> DatasetRights:
        return cls(start=row.start, cancel=row.cancel, delete=row.delete)


@strawberry.type(
    description="A dataset and its generation state (queued, running, completed, failed, cancelled)."
)
class Dataset:
    dataset_id: int
    name: str
    project_id: int
    schema_id: int
    constraint_set_id: int | None
    record_count: int
    types: list[str] = strawberry.field(
        graphql_type=OutputFormatList, description="The output formats it is written in"
    )
    params: JSON
    status: str
    progress: float
    records_generated: int
    error: str | None
    attempt: int
    created_by: int | None
    created_at: str
    started_at: str | None
    finished_at: str | None
    seed: str | None = strawberry.field(
        description="params.seed in decimal: exact, where a 63-bit seed read as a JSON number is not "
        "(JavaScript rounds integers beyond 2^53)"
    )
    rules: JSON = strawberry.field(
        description="The constraint rules as they were when the dataset was created (later edits of "
        "its constraint set change nothing); what a re-generation or `tdg generate --constraints` uses"
    )
    invalid_records: int = strawberry.field(
        description="Records that break one constraint each (params.invalid_rate x record_count, "
        "rounded; 0 without it): their labels are the `labels` file, GET /data/{id}?format=labels"
    )
    # read with the row where there are no per-request loaders (a subscription's poll)
    file_rows: strawberry.Private[list[DatasetFileRow] | None] = None
    # likewise the caller's rights, where there is no principal on the context to read them with
    rights: strawberry.Private[DatasetRightsRow | None] = None

    @strawberry.field(description="Files written so far (complete once status is completed).")
    async def files(self, info: Info[Context, None]) -> list[DatasetFile]:
        rows = self.file_rows
        if rows is None:
            rows = await info.context.loaders.files_by_dataset.load(self.dataset_id)
        return [DatasetFile.from_row(r) for r in rows]

    @strawberry.field(description="What the caller may do to this dataset (start, cancel, delete).")
    async def viewer_can(self, info: Info[Context, None]) -> DatasetRights:
        rights = self.rights
        if rights is None:
            ctx = info.context
            role = await ctx.loaders.project_role.load(self.project_id)
            rights = rights_on(ctx.principal, role, self.created_by)
        return DatasetRights.from_row(rights)

    @classmethod
    def from_row(
        cls,
        row: DatasetRow,
        files: list[DatasetFileRow] | None = None,
        rights: DatasetRightsRow | None = None,
    ) -> Dataset:
        assert row.id is not None
        return cls(
            dataset_id=row.id,
            name=row.name,
            project_id=row.project_id,
            schema_id=row.schema_id,
            constraint_set_id=row.constraint_set_id,
            record_count=row.record_count,
            types=list(row.types),
            params=JSON(dict(row.params)),
            status=row.status,
            progress=round(row.progress, 4),
            records_generated=row.records_generated,
            error=row.error,
            attempt=row.attempt,
            created_by=row.created_by,
            created_at=iso(row.created_at) or "",
            started_at=iso(row.started_at),
            finished_at=iso(row.finished_at),
            seed=_seed(row.params),
            rules=JSON(list(row.rules)),
            invalid_records=invalid_records(row),
            file_rows=files,
            rights=rights,
        )


def _seed(params: dict[str, object]) -> str | None:
    seed = params.get("seed")
    return str(seed) if isinstance(seed, int) and not isinstance(seed, bool) else None


@strawberry.type
class DatasetPage:
    items: list[Dataset]
    total: int


@strawberry.type(
    description="Why a record is invalid (params.invalid_rate): the one constraint it breaks; a line "
    "of a dataset's labels file (GET /data/{id}?format=labels)"
)
class InvalidRecordLabel:
    record: int = strawberry.field(description="0-based index in output order, across the dataset's files")
    pointer: str = strawberry.field(description="The instance location (RFC 6901 JSON Pointer; '' is the root)")
    keyword: str = strawberry.field(description="The JSON Schema keyword broken, as the validator names it")
    schema_pointer: str = strawberry.field(description="Where the constraint lives in the schema (JSON Pointer)")
    rule: int | None = strawberry.field(description="The constraint-set rule broken, by index; null for the schema")
    detail: str = strawberry.field(description="The violation, in a sentence")


@strawberry.type(description="The first records of a schema rendered in one format; nothing is stored.")
class Preview:
    schema_id: int
    format: str = strawberry.field(description=spoken())
    media_type: str = strawberry.field(description="The media type a download of this format carries")
    count: int
    seed: int = strawberry.field(description="The seed used (params.seed, or drawn): pass it to reproduce")
    content: str = strawberry.field(
        description="The rendered text: the bytes of a dataset of `count` records "
        "with the same schema, rules, params and seed"
    )
    elapsed_ms: float
    labels: list[InvalidRecordLabel] = strawberry.field(
        description="The invalid records among these (params.invalid_rate) and why; empty without it"
    )

    @classmethod
    def from_result(cls, result: PreviewResult) -> Preview:
        values = asdict(result)
        values["labels"] = [InvalidRecordLabel(**label) for label in result.labels]
        return cls(**values)
