"""Generation through Celery: the in-process API with TDG_BROKER_URL (a Redis database claimed for
this test) and two real `tdg worker` processes sharing the database and data directory. Every
file must be byte-identical to what one uninterrupted process writes for the same seed."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, col, select

from app.core.database import make_sync_engine
from app.core.datasets.models import Dataset
from app.core.settings import Settings
from tests.api_client import Api
from tests.datasets.flow import (
    FINAL,
    ORDER_JSON,
    ORDER_XSD,
    ShardWatch,
    create_dataset,
    download,
    upload_schema,
    wait_for,
)
from tests.datasets.processes import Proc, expected_sha256, redis_database, service_env, start_worker
from tests.support.s3_server import storage_env
from tests.support.waiting import eventually

# long enough that a worker starved of CPU on a loaded machine never loses its shard by itself
LEASE_SECONDS = 600.0


@pytest.fixture
def broker_url() -> Iterator[str]:
    with redis_database() as url:
        yield url


@pytest.fixture
def settings(settings: Settings, broker_url: str) -> Settings:
    # shards of 8,192 records: the larger datasets are produced by both workers together
    return settings.model_copy(update={"broker_url": broker_url, "job_lease_seconds": LEASE_SECONDS,
                                       "shard_records": 8192})


def worker_env(settings: Settings) -> dict[str, str]:
    assert settings.broker_url
    return service_env(settings.database_url, settings.data_dir, TDG_BROKER_URL=settings.broker_url,
                       TDG_JOB_LEASE_SECONDS=str(settings.job_lease_seconds), **storage_env(settings))


def lockers(database_url: str, ids: list[int]) -> set[str]:
    engine = make_sync_engine(database_url)
    try:
        with Session(engine) as session:
            rows = session.exec(select(Dataset.locked_by).where(col(Dataset.id).in_(ids))).all()
        return {r for r in rows if r}
    finally:
        engine.dispose()


async def test_two_celery_workers_write_the_same_bytes_as_one_process(api: Api, settings: Settings,
                                                                      tmp_path: Path) -> None:
    root = api.root
    assert root is not None
    workers: list[Proc] = []
    try:
        for i in range(2):
            workers.append(start_worker(worker_env(settings), tmp_path / f"worker{i}.log", f"w{i}"))
        project = await api.create_project(root, "Celery")
        json_schema = await upload_schema(api, root, ORDER_JSON, "customer_order.schema.json")
        xsd_schema = await upload_schema(api, root, ORDER_XSD, "customer_order.xsd")
        plans = [  # (schema id, schema bytes, filename, record_count, types, seed)
            (json_schema["schema_id"], ORDER_JSON, "customer_order.schema.json", 40_000, ["csv"], 11),
            (json_schema["schema_id"], ORDER_JSON, "customer_order.schema.json", 30_000, ["json", "sql"], 12),
            (xsd_schema["schema_id"], ORDER_XSD, "customer_order.xsd", 15_000, ["xml"], 13),
            (json_schema["schema_id"], ORDER_JSON, "customer_order.schema.json", 20_000, ["csv"], 14),
        ]
        created = [await create_dataset(api, root, project["project_id"], sid, n, types=types, params={"seed": seed})
                   for sid, _, _, n, types, seed in plans]
        watch = ShardWatch(settings.database_url, [ds["dataset_id"] for ds in created])
        try:
            async def sampled() -> list[dict[str, Any]]:
                await asyncio.to_thread(watch.sample)
                return [await api.call("GET", f"/datasets/{ds['dataset_id']}", root, 200) for ds in created]

            await eventually(sampled, lambda ds: all(d["status"] in FINAL for d in ds), timeout=300, interval=0.05)
        finally:
            watch.close()
        finished = [await wait_for(api, root, ds["dataset_id"]) for ds in created]
        for ds, (_, content, filename, n, types, seed) in zip(finished, plans, strict=True):
            assert ds["status"] == "completed", ds
            assert ds["attempt"] == 1, ds
            files = {f["format"]: f for f in ds["files"]}
            assert sorted(files) == sorted(types)
            for fmt in types:
                assert files[fmt]["records"] == n
                assert files[fmt]["sha256"] == expected_sha256(content, filename, {"seed": seed}, n, fmt), (ds, fmt)
        r = await download(api, root, finished[0]["dataset_id"], "csv")
        assert r.status_code == 200 and r.content.count(b"\n") == 40_001
        # both workers took part (prefetch 1, one slot each; the larger datasets have 3-5 shards)
        assert len({w.split(":")[-1] for w in watch.workers}) == 2, watch.workers
        for w in workers:
            assert "tdg.generate_shard" in w.output()
    finally:
        for w in workers:
            w.stop()
