"""Datasets: creation (validated, queued for the dispatcher), listing, manual start,
cancellation/deletion and downloads."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.authz import Action, may_act_on_dataset, require, require_dataset, require_project
from app.core.datasets import coverage, negative
from app.core.datasets.models import Dataset, DatasetFile, DatasetStatus
from app.core.datasets.params import checked_params, require_same_schema
from app.core.datasets.payloads import DatasetCreate
from app.core.datasets.repository import DatasetRepository
from app.core.error_codes import ErrorCode
from app.core.errors import Conflict, Gone, Invalid, NotFound
from app.core.jobs.plans import invalid_records, rate_of
from app.core.library import schema_problems
from app.core.library.models import ConstraintSet, ProjectSchema, SchemaDoc
from app.core.library.repository import ConstraintSetRepository, SchemaRepository
from app.core.models import ProjectRole, stored_id, utcnow
from app.core.principal import Principal
from app.core.projects import service as projects
from app.core.projects.models import Project
from app.core.projects.repository import ProjectRepository
from app.core.services import audit
from app.core.settings import Settings
from app.core.storage import store_for
from app.core.storage.files import COVERAGE, LABELS, STORED_FORMATS, is_documents
from app.core.tenants.repository import TenantRepository
from app.core.validation import parse
from app.generation.output_formats import FORMAT_NAMES, spoken
from app.generation.xml_documents import ZIP_MEDIA_TYPE


def _types(raw: list[str] | None, settings: Settings) -> list[str]:
    if raw is None:
        return list(settings.default_types)
    if not raw:
        raise Invalid("types must list at least one format.", code=ErrorCode.NO_FORMATS, field="types")
    unknown = [t for t in raw if t not in FORMAT_NAMES]
    if unknown:
        raise Invalid(f"Unknown output format '{unknown[0]}'; use {spoken()}.", code=ErrorCode.UNKNOWN_FORMAT, field="types")
    return list(dict.fromkeys(raw))


async def _constraint_set(
    session: AsyncSession, principal: Principal, data: DatasetCreate, schema_id: int | None
) -> ConstraintSet | None:
    """The dataset's constraint set (None without one), refused unless it is the schema's."""
    if data.constraint_set_id is None:
        return None
    try:
        constraint_set = await ConstraintSetRepository(session, principal).get(data.constraint_set_id)
    except NotFound:
        raise NotFound(
            f"Constraint set {data.constraint_set_id} does not exist in this tenant.",
            code=ErrorCode.CONSTRAINT_SET_NOT_FOUND, field="constraint_set_id",
        ) from None
    require_same_schema(constraint_set, schema_id)
    return constraint_set


async def create(
    session: AsyncSession,
    principal: Principal,
    settings: Settings,
    data: DatasetCreate,
    *,
    recorded_rules: list[dict[str, Any]] | None = None,
) -> Dataset:
    """`recorded_rules`: another dataset's rules as it recorded them (generate again), checked and
    stored in place of a constraint set's."""
    visible = await ProjectRepository(session, principal).get(data.project_id)
    require_project(principal, visible.role, Action.DATASET_CREATE)
    project = visible.project
    try:
        schema = await SchemaRepository(session, principal).get(data.schema_id)
    except NotFound:
        raise NotFound(f"Schema {data.schema_id} does not exist in this tenant.", code=ErrorCode.SCHEMA_NOT_FOUND, field="schema_id") from None
    if schema.tenant_id != project.tenant_id:
        raise NotFound(f"Schema {data.schema_id} does not exist in this project's tenant.", code=ErrorCode.SCHEMA_NOT_FOUND, field="schema_id")
    tenant = await TenantRepository(session, principal).get(project.tenant_id)
    limit = min(tenant.max_record_count, settings.max_record_count)
    if data.record_count > limit:
        raise Invalid(f"record_count must be between 1 and {limit:,} (this tenant's limit).", code=ErrorCode.INVALID_RECORD_COUNT, field="record_count")
    rules: list[dict[str, Any]] = list(recorded_rules or [])
    constraint_set = await _constraint_set(session, principal, data, schema.id)
    if constraint_set is not None:
        rules = list(constraint_set.rules)
    raw_params = await checked_params(settings, schema, constraint_set, data.params)
    # a root the engine cannot generate is refused now, naming its paths, not as a failed dataset later
    await schema_problems.refuse_blocked(
        session, principal, settings, stored_id(schema), raw_params.get("root")
    )
    # the coverage set comes first: a dataset smaller than the set is refused, naming its size
    await coverage.check_record_count(settings, schema, rules, raw_params, data.record_count)
    # invalid records: what the engine cannot break, or the formats cannot carry, is refused now
    await negative.check(settings, schema, rules, raw_params, data.record_count, _types(data.types, settings))
    deferred = raw_params.pop("deferred", False)
    project_id, schema_id = stored_id(project), stored_id(schema)
    dataset = Dataset(
        tenant_id=project.tenant_id,
        project_id=project_id,
        schema_id=schema_id,
        constraint_set_id=data.constraint_set_id,
        name=data.name,
        record_count=data.record_count,
        types=_types(data.types, settings),
        params=raw_params,
        rules=rules,
        startable=not deferred,
        created_by=principal.user_id,
    )
    session.add(dataset)
    if await SchemaRepository(session, principal).link(project_id, schema_id) is None:
        session.add(ProjectSchema(project_id=project_id, schema_id=schema_id, linked_by=principal.user_id))
    await session.flush()
    audit.record(
        session,
        principal,
        "dataset.create",
        target_type="dataset",
        target_id=dataset.id,
        project_id=project.id,
        tenant_id=project.tenant_id,
        details={
            "name": dataset.name,
            "schema_id": schema.id,
            "record_count": dataset.record_count,
            "types": dataset.types,
            "seed": raw_params["seed"],
            "deferred": deferred,
        },
    )
    return dataset


async def again(
    session: AsyncSession, principal: Principal, settings: Settings, dataset_id: int, name: str | None
) -> Dataset:
    """A new dataset from another's inputs: its project, schema, record count, formats, params (the
    seed included) and the rules as that dataset recorded them, so it generates the same records
    even after its constraint set was edited. Created as `create` would (rights, limits, checks)."""
    source = await DatasetRepository(session, principal).get(dataset_id)
    params = dict(source.params)
    data = parse(
        DatasetCreate,
        {
            "name": name if name is not None else _again_name(source.name),
            "project_id": source.project_id,
            "schema_id": source.schema_id,
            "record_count": source.record_count,
            "types": list(source.types),
            "params": params,
        },
    )
    # every check at creation (coverage size, invalid records) runs with the rules the source ran with
    dataset = await create(session, principal, settings, data, recorded_rules=list(source.rules))
    dataset.constraint_set_id = source.constraint_set_id
    return dataset


def _again_name(name: str) -> str:
    suffix = " (again)"
    return name[: 200 - len(suffix)] + suffix


async def get(session: AsyncSession, principal: Principal, dataset_id: int) -> Dataset:
    return await DatasetRepository(session, principal).get(dataset_id)


async def get_with_files(
    session: AsyncSession, principal: Principal, dataset_id: int
) -> tuple[Dataset, list[DatasetFile]]:
    return await DatasetRepository(session, principal).get_with_files(dataset_id)


async def list_visible(
    session: AsyncSession,
    principal: Principal,
    *,
    project_id: int | None,
    status: str | None,
    limit: int,
    offset: int,
) -> tuple[list[Dataset], int]:
    if status is not None and status not in DatasetStatus._value2member_map_:
        raise Invalid(f"status must be one of {', '.join(DatasetStatus._value2member_map_)}.", code=ErrorCode.INVALID_STATUS, field="status")
    if project_id is not None:
        await ProjectRepository(session, principal).get(project_id)
    return await DatasetRepository(session, principal).list(
        project_id=project_id, status=status, limit=limit, offset=offset
    )


@dataclass(frozen=True, slots=True)
class DatasetRights:
    """What the caller may do to one dataset, by authorization alone: the dataset's status decides
    which action applies (start a queued one, cancel a queued or running one, delete the others)."""

    start: bool
    cancel: bool
    delete: bool


NO_RIGHTS = DatasetRights(start=False, cancel=False, delete=False)


def rights_on(
    principal: Principal, project_role: ProjectRole | None, created_by: int | None
) -> DatasetRights:
    """The caller's rights on a dataset created by `created_by` in a project where their effective
    role is `project_role` (None: a project they cannot see)."""
    if project_role is None:
        return NO_RIGHTS
    may = [
        may_act_on_dataset(principal, project_role, created_by, action)
        for action in (Action.DATASET_START, Action.DATASET_CANCEL, Action.DATASET_DELETE)
    ]
    return DatasetRights(*may)


async def start(session: AsyncSession, principal: Principal, dataset_id: int) -> Dataset:
    """The manual trigger: a queued dataset becomes startable (idempotent); other states are 409."""
    dataset = await DatasetRepository(session, principal).get(dataset_id)
    visible = await ProjectRepository(session, principal).get(dataset.project_id)
    require_dataset(principal, visible.role, dataset.created_by, Action.DATASET_START)
    if dataset.status != DatasetStatus.queued.value:
        raise Conflict(f"Dataset {dataset_id} is {dataset.status}; only a queued dataset can be started.", code=ErrorCode.DATASET_NOT_QUEUED)
    if not dataset.startable:
        dataset.startable = True
        audit.record(
            session,
            principal,
            "dataset.start",
            target_type="dataset",
            target_id=dataset_id,
            project_id=dataset.project_id,
            tenant_id=dataset.tenant_id,
        )
    return dataset


async def delete(session: AsyncSession, principal: Principal, settings: Settings, dataset_id: int) -> Dataset:
    """Queued/running: cancelled (the worker loses its fence and stops); otherwise removed."""
    repo = DatasetRepository(session, principal)
    dataset = await repo.get(dataset_id)
    visible = await ProjectRepository(session, principal).get(dataset.project_id)
    cancels = dataset.status in (DatasetStatus.queued.value, DatasetStatus.running.value)
    action = Action.DATASET_CANCEL if cancels else Action.DATASET_DELETE
    require_dataset(principal, visible.role, dataset.created_by, action)
    files = (await repo.files_of([dataset_id]))[dataset_id]
    for f in files:
        await session.delete(f)
    # no ORM relationship orders these deletes: without this flush the dataset row went first
    # and the database's cascade left the file-row deletes matching nothing (SAWarning)
    await session.flush()
    if cancels:
        dataset.status = DatasetStatus.cancelled.value
        dataset.finished_at = utcnow()
        dataset.lease_until = None
        dataset.error = "Cancelled by a user."
        await repo.drop_work(dataset_id)
    else:
        await session.delete(dataset)
    audit.record(
        session,
        principal,
        action.value,
        target_type="dataset",
        target_id=dataset_id,
        project_id=dataset.project_id,
        tenant_id=dataset.tenant_id,
        details={"name": dataset.name},
    )
    await session.flush()
    await asyncio.to_thread(store_for(settings).remove, f"datasets/{dataset_id}")
    return dataset


async def delete_project(
    session: AsyncSession, principal: Principal, settings: Settings, project_id: int
) -> Project:
    """A project goes with its datasets: once the caller may delete it, their file rows, their rows
    and their stored files, then the project (projects.delete). It lives here, not in projects,
    because datasets sit above projects in the domain order."""
    project = await projects.deletable(session, principal, project_id)
    await _delete_datasets_of(session, principal, settings, project_id)
    return await projects.delete(session, principal, project)


async def _delete_datasets_of(
    session: AsyncSession, principal: Principal, settings: Settings, project_id: int
) -> None:
    repo = DatasetRepository(session, principal)
    datasets = await repo.of_project(project_id)
    ids = [d.id for d in datasets if d.id is not None]
    for files in (await repo.files_of(ids)).values():
        for f in files:
            await session.delete(f)
    await session.flush()  # file rows before their datasets (see delete)
    for dataset in datasets:
        await session.delete(dataset)
    await session.flush()
    for dataset_id in ids:
        await asyncio.to_thread(store_for(settings).remove, f"datasets/{dataset_id}")


@dataclass(frozen=True, slots=True)
class Download:
    path: str  # relative to the store
    filename: str
    media_type: str
    size_bytes: int
    sha256: str


async def downloadable(repo: DatasetRepository, dataset_id: int, fmt: str, file_index: int) -> Dataset:
    """The dataset if `fmt` file `file_index` may be asked for: a known format, a visible and
    completed dataset (the checks of GET /data/{dataset_id} and of its signed links)."""
    require(repo.principal, Action.DATASET_DOWNLOAD)  # the tenant role, and a scoped token's actions
    if fmt not in STORED_FORMATS:
        raise Invalid(
            f"Unknown format '{fmt[:20]}'; use {spoken()} (or labels, coverage).",
            code=ErrorCode.UNKNOWN_FORMAT,
            field="format",
        )
    if file_index < 0:
        raise NotFound(f"Dataset {dataset_id} has no file {file_index}.", code=ErrorCode.FILE_NOT_FOUND, field="file_index")
    dataset = await repo.get(dataset_id)
    if dataset.status == DatasetStatus.expired.value:
        raise Gone(dataset.error or f"Dataset {dataset_id} has expired: its files were removed.", code=ErrorCode.DATASET_EXPIRED)
    if dataset.status in (DatasetStatus.failed.value, DatasetStatus.cancelled.value):
        # it never will be completed: say why, rather than to wait for it
        reason = dataset.error or "no reason was recorded"
        raise Conflict(f"Dataset {dataset_id} is {dataset.status}, so it has no files: {reason}", code=ErrorCode.DATASET_NOT_COMPLETED)
    if dataset.status != DatasetStatus.completed.value:
        raise Conflict(
            f"Dataset {dataset_id} is {dataset.status}; files can be downloaded once it is completed.",
            code=ErrorCode.DATASET_NOT_COMPLETED,
        )
    return dataset


async def download(
    session: AsyncSession,
    principal: Principal,
    settings: Settings,
    renderer: Any,
    dataset_id: int,
    fmt: str,
    file_index: int,
) -> Download:
    repo = DatasetRepository(session, principal)
    dataset = await downloadable(repo, dataset_id, fmt, file_index)
    row = await repo.file(dataset_id, fmt, file_index)
    if row is None and fmt in (LABELS, COVERAGE):
        _no_side_file(dataset, fmt, file_index)
    if row is None:
        if rate_of(dataset.params or {}):  # never rendered with invalid records
            schema = await repo.session.get(SchemaDoc, dataset.schema_id)
            negative.refuse_format(dataset.params or {}, fmt, schema.type if schema else "json_schema")
        if await repo.file(dataset_id, fmt, 0) is None:
            row = await _render(repo, renderer, dataset, fmt, file_index)
        if row is None:
            raise NotFound(f"Dataset {dataset_id} has no {fmt} file {file_index}.", code=ErrorCode.FILE_NOT_FOUND, field="file_index")
    audit.record(
        session,
        principal,
        "dataset.download",
        target_type="dataset",
        target_id=dataset_id,
        project_id=dataset.project_id,
        tenant_id=dataset.tenant_id,
        details={"format": fmt, "file_index": file_index},
    )
    output = STORED_FORMATS[fmt]
    extension, media_type = output.extension, output.media_type
    if is_documents(dataset.params, fmt):  # a zip of documents, an entry per record
        extension, media_type = "zip", ZIP_MEDIA_TYPE
    name = f"dataset-{dataset_id}" + (f"-{file_index}" if file_index else "") + f".{extension}"
    return Download(row.path, name, media_type, row.size_bytes, row.sha256)


def _no_side_file(dataset: Dataset, fmt: str, file_index: int) -> None:
    """404 for a labels or coverage file a dataset does not have, saying why (the negative suite's
    report is its labels file: one label per broken constraint)."""
    if fmt == COVERAGE and file_index == 0 and negative.suite(dataset.params or {}):
        raise NotFound(
            f"Dataset {dataset.id} is a negative suite (params.coverage each with params.invalid_rate 1): "
            "it has no coverage report; its report is the labels file (format=labels), one label per "
            "broken constraint.",
            code=ErrorCode.FILE_NOT_FOUND,
            field="format",
        )
    made = invalid_records(dataset) if fmt == LABELS else (dataset.params or {}).get("coverage")
    param = "params.invalid_rate" if fmt == LABELS else "params.coverage"
    what = "labels file" if fmt == LABELS else "coverage report"
    raise NotFound(
        f"Dataset {dataset.id} has no {what}: it was made without {param}."
        if not made or file_index == 0
        else f"Dataset {dataset.id} has one {what} (file_index 0).",
        code=ErrorCode.FILE_NOT_FOUND,
        field="file_index" if file_index else "format",
    )


async def lose_files(session: AsyncSession, principal: Principal, dataset_id: int, reason: str) -> None:
    """A stored file of the dataset is missing or damaged: the dataset is `expired` with `reason`
    and lists no files (as after the retention purge), so its state says what a download found.
    The caller commits, then removes what is left of its folder."""
    await DatasetRepository(session, principal).expire(dataset_id, reason)


async def _render(
    repo: DatasetRepository, renderer: Any, dataset: Dataset, fmt: str, file_index: int
) -> DatasetFile | None:
    """Render a format that was not pre-generated, off the event loop, and keep it."""
    if renderer is None:
        raise Conflict("On-demand rendering is not available in this process.", code=ErrorCode.RENDERING_UNAVAILABLE)
    # the renderer records the file rows itself, once, however many downloads raced for them
    dataset_id = stored_id(dataset)
    await asyncio.wrap_future(renderer.render(dataset_id, fmt))
    return await repo.file(dataset_id, fmt, file_index)
