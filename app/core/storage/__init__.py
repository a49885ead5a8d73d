"""Where the service keeps files: one `Store` for the whole process, chosen by TDG_STORAGE_URL
(unset or `file:///path`: a local folder; `s3://bucket/prefix`: S3-compatible object storage)."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

from app.core.settings import Settings
from app.core.storage.base import StorageUnavailable, Store
from app.core.storage.blobs import BlobStore
from app.core.storage.local import LocalStore

_stores: dict[tuple[object, ...], Store] = {}
QUICK_RETRY_SECONDS = 3.0


def store_for(settings: Settings, *, work: bool = False) -> Store:
    """The settings' store, one per process (a forked child makes its own: boto3's connections do
    not survive a fork). `work`: the store of generation work in a worker process, whose calls
    are retried through transient faults until TDG_STORAGE_RETRY_SECONDS; elsewhere (a request, a
    loop of the server) for QUICK_RETRY_SECONDS only: there an answer, an error if need be, is
    worth more than a wait, and a loop tries again at its next pass."""
    key = (
        os.getpid(),
        work,
        settings.storage_url,
        str(settings.data_dir),
        settings.s3_endpoint_url,
        settings.s3_region,
        settings.export_part_bytes,
        settings.storage_timeout_seconds,
        settings.storage_copy_timeout_seconds,
        settings.storage_retry_seconds,
        settings.ready_timeout_seconds,
    )
    store = _stores.get(key)
    if store is None:
        store = _stores[key] = _open(settings, work)
    return store


def store_problem(settings: Settings) -> str | None:
    """Why the settings' store cannot be used, in one sentence; None when it can."""
    try:
        store_for(settings).check()
    except StorageUnavailable as exc:
        return exc.detail
    return None


def _open(settings: Settings, work: bool) -> Store:
    url = settings.storage_url
    if not url:
        return LocalStore(settings.data_dir)
    parts = urlsplit(url)
    if parts.scheme == "file":
        return LocalStore(Path(unquote(parts.path)))
    from app.core.storage.s3 import S3Store  # boto3 is imported only where it is used

    return S3Store(
        parts.netloc,
        unquote(parts.path),
        endpoint_url=settings.s3_endpoint_url,
        region=settings.s3_region,
        part_bytes=settings.export_part_bytes,
        timeout_seconds=settings.storage_timeout_seconds,
        copy_timeout_seconds=settings.storage_copy_timeout_seconds,
        retry_seconds=settings.storage_retry_seconds
        if work
        else min(QUICK_RETRY_SECONDS, settings.storage_retry_seconds),
        check_seconds=settings.ready_timeout_seconds,
    )


__all__ = ["BlobStore", "LocalStore", "StorageUnavailable", "Store", "store_for", "store_problem"]
