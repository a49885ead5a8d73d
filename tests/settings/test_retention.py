"""Tenant retention: once a completed dataset is older than the tenant's `retention_days`, the
periodic purge removes its files and the dataset says so (status `expired`, a reason in `error`).
Files are looked for in the app's store from outside (tests/support/s3_server.stored_under): the
local folder or the S3 server, as the storage parameter says (STORING in tests/conftest.py)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from datetime import timedelta

import pytest
from sqlalchemy import text

from app.core.database import make_sync_engine
from app.core.models import utcnow
from app.core.settings import Settings
from app.core.storage import store_for
from app.core.storage.files import Sink
from tests.api_client import Api
from tests.datasets.flow import create_dataset, download, wait_for
from tests.support.s3_server import stored_under
from tests.support.waiting import eventually

SCHEMA = '{"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}'


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"retention_interval_seconds": 0.1, "dispatch_interval_seconds": 0.2})


def _age(settings: Settings, dataset_id: int, days: int) -> None:
    """Pretend the dataset finished `days` ago (the only way to test a retention of days quickly)."""
    engine = make_sync_engine(settings.database_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("UPDATE dataset SET finished_at = :at WHERE id = :id"),
                         {"at": utcnow() - timedelta(days=days), "id": dataset_id})
    finally:
        engine.dispose()


async def test_expired_datasets_lose_their_files(api: Api, settings: Settings) -> None:
    tenant_id, admin = await api.create_tenant()
    assert api.root is not None
    tenant = await api.call("PUT", f"/tenants/{tenant_id}", api.root, 200, json={"retention_days": 2})
    assert tenant["retention_days"] == 2
    await api.call("PUT", f"/tenants/{tenant_id}", admin, 403, json={"retention_days": 5})
    await api.call("PUT", f"/tenants/{tenant_id}", api.root, 422, json={"retention_days": 0})

    project = await api.create_project(admin, "Retained")
    schema = await api.call("POST", "/schemas", admin, 201, json={"name": "n", "content": SCHEMA,
                                                                 "project_id": project["project_id"]})
    old = await create_dataset(api, admin, project["project_id"], schema["schema_id"], 5, name="old")
    fresh = await create_dataset(api, admin, project["project_id"], schema["schema_id"], 5, name="fresh")
    for d in (old, fresh):
        assert (await wait_for(api, admin, d["dataset_id"]))["status"] == "completed"
    _age(settings, old["dataset_id"], 3)
    _age(settings, fresh["dataset_id"], 1)

    body = await eventually(lambda: api.call("GET", f"/datasets/{old['dataset_id']}", admin, 200),
                            lambda b: b["status"] == "expired", timeout=120)
    assert body["files"] == [] and "retention period of 2 days" in body["error"]
    # the purge commits the row before it removes the folder (a download never meets a row without
    # its file), so the folder may outlive the status by a moment
    folder = f"datasets/{old['dataset_id']}"
    assert stored_under(settings, f"datasets/{fresh['dataset_id']}")
    await eventually(lambda: asyncio.to_thread(stored_under, settings, folder), lambda there: not there,
                     timeout=120, what=f"{folder} removed from the store")
    r = await download(api, admin, old["dataset_id"], "json")
    assert r.status_code == 410 and "retention period of 2 days" in r.json()["detail"]

    kept = await api.call("GET", f"/datasets/{fresh['dataset_id']}", admin, 200)
    assert kept["status"] == "completed" and kept["files"]
    assert (await download(api, admin, fresh["dataset_id"], "json")).status_code == 200
    listed = await api.call("GET", "/datasets", admin, 200, params={"status": "expired"})
    assert [d["dataset_id"] for d in listed] == [old["dataset_id"]]


async def test_sweep_removes_what_interrupted_work_left_on_disk(api: Api, settings: Settings) -> None:
    """Parts of a finished dataset (its worker died between the commit and the clean-up) and the
    folder of a deleted dataset go; a completed dataset's files and a running one's parts stay."""
    assert api.root is not None
    project = await api.create_project(api.root, "Swept")
    schema = await api.call("POST", "/schemas", api.root, 201, json={"name": "n", "content": SCHEMA,
                                                                    "project_id": project["project_id"]})
    done = await create_dataset(api, api.root, project["project_id"], schema["schema_id"], 5)
    assert (await wait_for(api, api.root, done["dataset_id"]))["status"] == "completed"
    work, orphan = f"datasets/{done['dataset_id']}/work", "datasets/987654"
    _put(settings, f"{work}/s0000-a1/data-0000.json", b"[]")
    _put(settings, f"{orphan}/work/s0001-a2/data-0000.csv", b"x")

    def left() -> list[str]:
        return stored_under(settings, work) + stored_under(settings, orphan)

    await eventually(lambda: asyncio.to_thread(left), lambda found: not found,
                     timeout=120, what="the sweep removing the stale parts and the orphan folder")
    assert stored_under(settings, f"datasets/{done['dataset_id']}/files")
    body = await api.call("GET", f"/datasets/{done['dataset_id']}", api.root, 200)
    assert (await download(api, api.root, done["dataset_id"], "json")).status_code == 200
    assert len(body["files"]) == 1


def _put(settings: Settings, relative: str, data: bytes) -> None:
    """A file left in the store as a worker killed mid-shard leaves it, written through the store.
    The sweep runs every 0.1 s here and may remove the folder while the file is being written (the
    local store then finds its temporary gone): that is the removal the test waits for, not a fault."""

    def produce(streams: Sequence[Sink]) -> None:
        streams[0].write(data)

    with contextlib.suppress(FileNotFoundError):
        store_for(settings).write_many([relative], produce)
