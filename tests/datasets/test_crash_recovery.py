"""Crash recovery with real processes and kill -9: (a) the `tdg serve` process group (server and
its local pool) dies mid-generation and is restarted; (b) one of two Celery workers dies
mid-dataset. Either way the dataset completes exactly once, with a complete, correct file (the
bytes of an uninterrupted run), one file row, and no partial files or stale attempt folders."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlmodel import Session, col, select

from app.core.database import make_sync_engine
from app.core.datasets.models import DatasetShard, ShardKind, ShardStatus
from app.core.settings import Settings
from tests.api_client import Api
from tests.datasets.flow import ORDER_JSON, create_dataset, download, upload_schema, wait_for
from tests.datasets.processes import (
    Proc,
    expected_sha256,
    free_port,
    redis_database,
    service_env,
    start_serve,
    start_worker,
)
from tests.datasets.test_celery import lockers, worker_env
from tests.support.processes import alive, expire_leases
from tests.support.s3_server import on_disk, stored_under
from tests.support.waiting import eventually, eventually_sync

RECORDS = 200_000
SEED = 77
SHARD_RECORDS = 65_536  # four shards: the interrupted one re-runs, the finished ones are kept
# long enough that a worker starved of CPU on a loaded machine never loses its shard by itself:
# the tests expire the leases of the workers they kill (the seconds running out, without the wait)
LEASE_SECONDS = 600.0
WAIT = 300.0  # deadline for the processes to act, however slowly a loaded machine runs them


def _left_on_disk(data_dir: Path, dataset_id: int) -> tuple[list[str], list[str]]:
    """(folders, partial files) of a dataset."""
    folder = data_dir / "datasets" / str(dataset_id)
    folders = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_dir())
    partial = sorted(str(p.relative_to(folder)) for p in folder.rglob("*.part"))
    return folders, partial


def _assert_clean_completion(body: dict[str, Any], stored: Callable[[], list[str]]) -> None:
    """`stored`: what the store holds under the dataset's folder (files, empty folders, unfinished uploads)."""
    assert body["status"] == "completed", body
    assert body["attempt"] >= 2, body  # the first run really was interrupted
    assert [(f["format"], f["file_index"], f["records"]) for f in body["files"]] == [("csv", 0, RECORDS)]
    expected = expected_sha256(ORDER_JSON, "customer_order.schema.json", {"seed": SEED}, RECORDS, "csv")
    assert body["files"][0]["sha256"] == expected
    # the assembling worker removes the parts right after its completing commit
    eventually_sync(stored, lambda left: bool(left) and all(k.startswith("files/") for k in left),
                    timeout=WAIT, what="only the files left in the store")


class _Client:
    """A blocking client of a real server, logged in as the SuperUser."""

    def __init__(self, port: int) -> None:
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{port}/api/v1", timeout=30)
        r = self.http.post("/users/token", data={"username": "root", "password": "root-password-123"})
        assert r.status_code == 200, r.text
        self.http.headers["Authorization"] = f"Bearer {r.json()['access_token']}"

    def call(self, method: str, path: str, status: int, **kwargs: Any) -> Any:
        r = self.http.request(method, path, **kwargs)
        assert r.status_code == status, (method, path, r.status_code, r.text)
        return r.json() if r.headers.get("content-type", "").startswith("application/json") else r

    def wait_mid_write(self, dataset_id: int, data_dir: Path) -> dict[str, Any]:
        """Wait until a shard is writing a part (a `.part` file on disk) of the running dataset:
        progress alone may first show when a small shard has already finished."""
        folder = data_dir / "datasets" / str(dataset_id)

        def writing(body: dict[str, Any]) -> bool:
            assert body["status"] in ("queued", "running"), body
            return body["status"] == "running" and any(folder.rglob("*.part"))

        result: dict[str, Any] = eventually_sync(lambda: self.call("GET", f"/datasets/{dataset_id}", 200), writing,
                                                 timeout=WAIT, interval=0.02)
        return result

    def close(self) -> None:
        self.http.close()


def test_serve_killed_mid_generation_and_restarted(database_url: str, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    env = service_env(database_url, data_dir, TDG_WORKERS="1", TDG_JOB_LEASE_SECONDS=str(LEASE_SECONDS),
                      TDG_DISPATCH_INTERVAL_SECONDS="0.2", TDG_SHARD_RECORDS=str(SHARD_RECORDS))
    port = free_port()
    server: Proc | None = start_serve(env, tmp_path / "serve1.log", port)
    try:
        client = _Client(port)
        project = client.call("POST", "/projects/create", 201, json={"name": "Crash", "description": ""})
        schema = client.call("POST", "/schemas", 201,
                             files={"file": ("customer_order.schema.json", ORDER_JSON)})
        ds = client.call("POST", "/datasets/create", 201, json={
            "name": "big", "project_id": project["project_id"], "schema_id": schema["schema_id"],
            "record_count": RECORDS, "types": ["csv"], "params": {"seed": SEED}})
        running = client.wait_mid_write(ds["dataset_id"], data_dir)
        server.kill9()
        client.close()
        assert running["progress"] < 1
        folders, partial = _left_on_disk(data_dir, ds["dataset_id"])
        assert any(f.startswith("work/s") for f in folders) and partial, (folders, partial)  # a half-written part
        # every worker of the dataset died with the server
        assert expire_leases(database_url, ds["dataset_id"]) >= 1

        server = start_serve(env, tmp_path / "serve2.log", port)
        client = _Client(port)
        body = eventually_sync(lambda: client.call("GET", f"/datasets/{ds['dataset_id']}", 200),
                               lambda b: b["status"] not in ("queued", "running"), timeout=WAIT, interval=0.2)
        _assert_clean_completion(body, lambda: on_disk(data_dir / "datasets" / str(ds["dataset_id"]),
                                                       empty_folders=True))
        r = client.call("GET", f"/data/{ds['dataset_id']}", 200, params={"format": "csv"})
        assert r.content.count(b"\n") == RECORDS + 1
        assert r.headers["x-content-sha256"] == body["files"][0]["sha256"]
        client.close()
    finally:
        if server is not None:
            server.stop()


@pytest.fixture
def broker_url() -> Iterator[str]:
    with redis_database() as url:
        yield url


@pytest.fixture
def settings(settings: Settings, broker_url: str) -> Settings:
    return settings.model_copy(update={"broker_url": broker_url, "job_lease_seconds": LEASE_SECONDS,
                                       "shard_records": SHARD_RECORDS})


async def test_celery_worker_killed_mid_dataset(api: Api, settings: Settings, tmp_path: Path) -> None:
    root = api.root
    assert root is not None
    workers: list[Proc] = []
    try:
        for i in range(2):
            workers.append(await asyncio.to_thread(
                start_worker, worker_env(settings), tmp_path / f"worker{i}.log", f"crash{i}"))
        project = await api.create_project(root, "Celery crash")
        schema = await upload_schema(api, root, ORDER_JSON, "customer_order.schema.json")
        ds = await create_dataset(api, root, project["project_id"], schema["schema_id"], RECORDS, types=["csv"],
                                  params={"seed": SEED})
        did = ds["dataset_id"]
        # the victim is the worker of a shard that has just started (taken over, nothing reported
        # yet): the dataset's last locker may already be done with a small last shard, and
        # killing it would interrupt nothing
        locker = await eventually(lambda: asyncio.to_thread(_starting_shard_worker, settings.database_url, did),
                                  timeout=WAIT, interval=0.02, what="a shard seen starting")
        pid = int(locker.rsplit(":", 1)[1])
        victim = next(w for w in workers if os.getpgid(pid) == w.pid)
        victim.kill9()
        # SIGKILL is delivered asynchronously
        await eventually(lambda: asyncio.to_thread(alive, pid), lambda running: not running, timeout=WAIT,
                         what="the pool child gone with its worker")
        await asyncio.to_thread(expire_leases, settings.database_url, did, {pid})

        done = await wait_for(api, root, did, timeout=WAIT)
        _assert_clean_completion(done, lambda: stored_under(settings, f"datasets/{did}", empty_folders=True))
        survivor = next(w for w in workers if w is not victim)
        (locker,) = lockers(settings.database_url, [did])
        assert os.getpgid(int(locker.rsplit(":", 1)[1])) == survivor.pid
        r = await download(api, root, did, "csv")
        assert r.status_code == 200 and r.content.count(b"\n") == RECORDS + 1
    finally:
        for w in workers:
            w.stop()


SHORT_LEASE_SECONDS = 4.0  # the workers' own lease in the test below: renewed by their heartbeat
REAP_SLACK_SECONDS = 30.0  # the reaper's tick, and a loaded machine's delays, on top of the lease


async def test_celery_worker_killed_loses_its_shard_within_the_lease(api: Api, settings: Settings,
                                                                     tmp_path: Path) -> None:
    """No lease expired by hand: the killed worker's heartbeat stops with it, its shard's lease
    lapses after SHORT_LEASE_SECONDS and the reaper re-queues it; the survivor, whose heartbeat
    keeps its own shards through blocks and uploads of any length, finishes the dataset."""
    root = api.root
    assert root is not None
    short = settings.model_copy(update={"job_lease_seconds": SHORT_LEASE_SECONDS})
    workers: list[Proc] = []
    try:
        for i in range(2):
            workers.append(await asyncio.to_thread(
                start_worker, worker_env(short), tmp_path / f"worker{i}.log", f"lapse{i}"))
        project = await api.create_project(root, "Celery lapse")
        schema = await upload_schema(api, root, ORDER_JSON, "customer_order.schema.json")
        ds = await create_dataset(api, root, project["project_id"], schema["schema_id"], RECORDS, types=["csv"],
                                  params={"seed": SEED})
        did = ds["dataset_id"]
        shard_id, locker = await eventually(
            lambda: asyncio.to_thread(_starting_shard, settings.database_url, did),
            timeout=WAIT, interval=0.02, what="a shard seen starting")
        pid = int(locker.rsplit(":", 1)[1])
        victim = next(w for w in workers if os.getpgid(pid) == w.pid)
        victim.kill9()
        killed = time.monotonic()
        await eventually(lambda: asyncio.to_thread(_holder, settings.database_url, shard_id),
                         lambda holder: holder != locker, timeout=WAIT, interval=0.1,
                         what="the killed worker's shard re-queued")
        lapsed_after = time.monotonic() - killed
        assert lapsed_after < SHORT_LEASE_SECONDS + REAP_SLACK_SECONDS, lapsed_after

        done = await wait_for(api, root, did, timeout=WAIT)
        _assert_clean_completion(done, lambda: stored_under(settings, f"datasets/{did}", empty_folders=True))
        assert done["attempt"] == 2, done  # only the killed worker's shard ran twice
    finally:
        for w in workers:
            w.stop()


def _starting_shard(database_url: str, dataset_id: int) -> tuple[int, str] | None:
    """(id, locked_by) of a shard of the dataset seen starting (see _starting_shard_worker)."""
    engine = make_sync_engine(database_url)
    try:
        with Session(engine) as session:
            row = session.exec(select(DatasetShard.id, DatasetShard.locked_by).where(
                DatasetShard.dataset_id == dataset_id, DatasetShard.kind == ShardKind.generate.value,
                DatasetShard.status == ShardStatus.running.value, DatasetShard.attempt >= 1,
                DatasetShard.records_done == 0, col(DatasetShard.stop) - col(DatasetShard.start) > 10_000,
            ).limit(1)).first()
    finally:
        engine.dispose()
    return (row[0], row[1]) if row is not None and row[0] is not None and row[1] else None


def _holder(database_url: str, shard_id: int) -> str | None:
    """Who holds the shard now (None: queued, or done and gone with its dataset's completion)."""
    engine = make_sync_engine(database_url)
    try:
        with Session(engine) as session:
            return session.exec(select(DatasetShard.locked_by).where(DatasetShard.id == shard_id)).first()
    finally:
        engine.dispose()


def _starting_shard_worker(database_url: str, dataset_id: int) -> str | None:
    """`locked_by` of a generate shard of the dataset that is running, taken over by a worker
    and has not yet reported progress (a whole shard is ahead of it)."""
    engine = make_sync_engine(database_url)
    try:
        with Session(engine) as session:
            return session.exec(select(DatasetShard.locked_by).where(
                DatasetShard.dataset_id == dataset_id, DatasetShard.kind == ShardKind.generate.value,
                DatasetShard.status == ShardStatus.running.value, DatasetShard.attempt >= 1,
                DatasetShard.records_done == 0, col(DatasetShard.stop) - col(DatasetShard.start) > 10_000,
            ).limit(1)).first()
    finally:
        engine.dispose()

