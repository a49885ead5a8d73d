"""Exporting a completed dataset's files to an S3-compatible object store (boto3).

Files are streamed from disk by boto3's transfer manager: multipart above `export_part_bytes`,
each object tagged with its SHA-256 in metadata. The upload runs in a worker thread (the event
loop keeps serving) within the request, which answers with the export record. Failures are
recorded with a reason built from the store's error code only, so no credential or endpoint
detail ever reaches the caller."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.authz import Action, require_project
from app.core.datasets import service as datasets
from app.core.datasets.models import Dataset, DatasetStatus
from app.core.datasets.repository import DatasetRepository
from app.core.error_codes import ErrorCode
from app.core.errors import Conflict, Invalid, NotFound, StorageUnavailable
from app.core.integrations import service as integrations
from app.core.integrations.models import Integration, ObjectExport
from app.core.integrations.payloads import ObjectExportCreate
from app.core.integrations.repository import IntegrationRepository
from app.core.models import utcnow
from app.core.principal import Principal
from app.core.projects.repository import ProjectRepository
from app.core.services import audit
from app.core.settings import Settings
from app.core.storage import Store, store_for
from app.core.storage.files import LABELS, STORED_FORMATS, file_name
from app.generation.output_formats import FORMAT_NAMES, spoken


def _upload(
    store: Store,
    config: dict[str, Any],
    secrets: dict[str, str],
    part_bytes: int,
    files: list[dict[str, Any]],
) -> None:
    from boto3.s3.transfer import TransferConfig

    from app.core.integrations.s3_client import s3_client

    client = s3_client(config, secrets)
    transfer = TransferConfig(
        multipart_threshold=part_bytes, multipart_chunksize=part_bytes, max_concurrency=2
    )
    for f in files:
        extra = {"ContentType": STORED_FORMATS[f["format"]].media_type, "Metadata": {"sha256": f["sha256"]}}
        if _copied_in_store(client, store, config, transfer, f, extra):
            continue
        with store.open(f["path"]) as body:  # streamed from the service's own store
            client.upload_fileobj(body, config["bucket"], f["key"], Config=transfer, ExtraArgs=extra)


def _copied_in_store(
    client: Any,
    store: Store,
    config: dict[str, Any],
    transfer: Any,
    f: dict[str, Any],
    extra: dict[str, Any],
) -> bool:
    """A file copied inside the object store when the service keeps its files in the same store
    as the target (same endpoint) and the integration's credentials may read them; False (stream
    it instead) otherwise."""
    from botocore.exceptions import ClientError

    where = store.location(f["path"])
    if where is None or (where[0] or "").rstrip("/") != (config.get("endpoint_url") or "").rstrip("/"):
        return False
    _, bucket, key = where
    try:
        client.copy(
            {"Bucket": bucket, "Key": key},
            config["bucket"],
            f["key"],
            ExtraArgs={**extra, "MetadataDirective": "REPLACE"},
            Config=transfer,
        )
    except ClientError as exc:
        if str(exc.response.get("Error", {}).get("Code")) in {"403", "AccessDenied", "404", "NoSuchKey"}:
            return False  # the integration may not read the service's bucket
        raise
    return True


def _key(*parts: str) -> str:
    return "/".join(p.strip("/") for p in parts if p and p.strip("/"))


async def _target(
    session: AsyncSession, principal: Principal, integration_id: int, dataset: Dataset
) -> Integration:
    """The caller's active s3 integration of the dataset's tenant. One that is missing or of another
    tenant is NotFound (a body field naming no visible row, as everywhere); a webhook integration
    exists but does not fit: Invalid."""
    try:
        integration = await IntegrationRepository(session, principal).get(integration_id)
    except NotFound:
        raise NotFound(f"Integration {integration_id} does not exist in this tenant.", code=ErrorCode.INTEGRATION_NOT_FOUND, field="integration_id") from None
    if integration.tenant_id != dataset.tenant_id:
        raise NotFound(f"Integration {integration_id} does not exist in this dataset's tenant.", code=ErrorCode.INTEGRATION_NOT_FOUND, field="integration_id")
    if integration.provider != "s3":
        raise Invalid(f"Integration {integration_id} is not an object-storage (s3) integration.", code=ErrorCode.INTEGRATION_NOT_S3, field="integration_id")
    integrations.ensure_active(integration)
    return integration


async def _stored_files(
    session: AsyncSession,
    principal: Principal,
    settings: Settings,
    renderer: Any,
    dataset_id: int,
    formats: list[str],
    base: str,
) -> list[dict[str, Any]]:
    """The dataset's files in `formats` (rendered first where not pre-generated, as a download
    would), and its labels file when it has one, with the object key each is uploaded to."""
    repo = DatasetRepository(session, principal)
    # no autoflush while rendering: a download's audit row flushed before the next format's render
    # would hold SQLite's write lock in this request while the renderer's process waits to write
    # that format's file rows ("database is locked" after busy_timeout: a 500)
    with session.no_autoflush:
        for fmt in formats:
            if await repo.file(dataset_id, fmt, 0) is None:
                await datasets.download(session, principal, settings, renderer, dataset_id, fmt, 0)
    # a dataset with invalid records (params.invalid_rate): its labels go with whichever formats
    stored = [f for f in (await repo.files_of([dataset_id]))[dataset_id] if f.format in formats or f.format == LABELS]
    return [
        {
            "path": f.path,
            "format": f.format,
            "file_index": f.file_index,
            "size_bytes": f.size_bytes,
            "sha256": f.sha256,
            "records": f.records,
            "key": _key(base, f.format, file_name(f.format, f.file_index)),
        }
        for f in stored
    ]


async def _send(settings: Settings, integration: Integration, files: list[dict[str, Any]]) -> str | None:
    """Upload the files; the failure in one sentence, or None."""
    # boto3 is imported on the first export (~10 MB a server that never exports need not hold)
    from boto3.exceptions import S3UploadFailedError
    from botocore.exceptions import BotoCoreError, ClientError

    from app.core.integrations.s3_client import describe_failure

    try:
        await integrations.vet_endpoint(settings, integration.config.get("endpoint_url"), "config.endpoint_url")
        await asyncio.to_thread(
            _upload,
            store_for(settings),
            integration.config,
            integrations.secrets_of(settings, integration),
            settings.export_part_bytes,
            files,
        )
    except (Invalid, StorageUnavailable) as exc:
        return exc.detail
    except (BotoCoreError, ClientError, S3UploadFailedError, OSError) as exc:
        return describe_failure(exc)
    return None


async def export(
    session: AsyncSession,
    principal: Principal,
    settings: Settings,
    renderer: Any,
    dataset_id: int,
    data: ObjectExportCreate,
) -> ObjectExport:
    dataset = await DatasetRepository(session, principal).get(dataset_id)
    visible = await ProjectRepository(session, principal).get(dataset.project_id)
    require_project(principal, visible.role, Action.DATASET_EXPORT)
    integration = await _target(session, principal, data.integration_id, dataset)
    if dataset.status != DatasetStatus.completed.value:
        raise Conflict(f"Dataset {dataset_id} is {dataset.status}; only a completed dataset can be exported.", code=ErrorCode.DATASET_NOT_COMPLETED)
    formats = list(dict.fromkeys(data.formats or dataset.types or settings.default_types))
    unknown = [f for f in formats if f not in FORMAT_NAMES]
    if unknown:
        raise Invalid(f"Unknown format '{unknown[0][:20]}'; use {spoken()}.", code=ErrorCode.UNKNOWN_FORMAT, field="formats")
    base = _key(str(integration.config.get("prefix") or ""), data.prefix or f"dataset-{dataset_id}")
    files = await _stored_files(session, principal, settings, renderer, dataset_id, formats, base)
    record = ObjectExport(
        tenant_id=dataset.tenant_id,
        dataset_id=dataset_id,
        integration_id=integration.id,
        formats=formats,
        bucket=integration.config["bucket"],
        created_by=principal.user_id,
        objects=[{k: v for k, v in f.items() if k != "path"} for f in files],
    )
    error = await _send(settings, integration, files)
    record.status = "failed" if error else "completed"
    record.error = error
    record.finished_at = utcnow()
    session.add(record)
    await session.flush()
    audit.record(
        session,
        principal,
        "dataset.export",
        target_type="dataset",
        target_id=dataset_id,
        project_id=dataset.project_id,
        tenant_id=dataset.tenant_id,
        details={
            "export_id": record.id,
            "integration_id": integration.id,
            "formats": formats,
            "objects": len(files),
            "status": record.status,
        },
        success=error is None,
    )
    return record
