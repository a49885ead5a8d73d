"""Tenant retention: once a completed dataset is older than the tenant's `retention_days`, the
periodic purge removes its files and the dataset says so (status `expired`, a reason in `error`)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from app.core.database import make_sync_engine
from app.core.models import utcnow
from app.core.settings import Settings
from tests.api_client import Api
from tests.datasets.flow import create_dataset, download, wait_for
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
    folder = Path(settings.data_dir) / "datasets" / str(old["dataset_id"])
    await eventually(lambda: asyncio.to_thread(folder.exists), lambda there: not there, timeout=120,
                     what=f"{folder} removed")
    r = await download(api, admin, old["dataset_id"], "json")
    assert r.status_code == 409 and "expired" in r.json()["detail"]

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
    datasets = Path(settings.data_dir) / "datasets"
    stale = datasets / str(done["dataset_id"]) / "work" / "s0000-a1"
    stale.mkdir(parents=True)
    (stale / "data-0000.json").write_bytes(b"[]")
    orphan = datasets / "987654" / "work" / "s0001-a2"
    orphan.mkdir(parents=True)
    (orphan / ".data-0000.csv.1-abc.part").write_bytes(b"x")

    work, orphan = datasets / str(done["dataset_id"]) / "work", datasets / "987654"
    await eventually(lambda: asyncio.to_thread(lambda: work.exists() or orphan.exists()), lambda left: not left,
                     timeout=120, what="the sweep removing the stale parts and the orphan folder")
    body = await api.call("GET", f"/datasets/{done['dataset_id']}", api.root, 200)
    assert (await download(api, api.root, done["dataset_id"], "json")).status_code == 200
    assert len(body["files"]) == 1
