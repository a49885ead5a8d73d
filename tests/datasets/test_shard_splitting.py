"""Shards sized by what the workers are doing: a dataset that arrives while every worker is busy
is one shard; when a worker later idles with nothing queued, the running shard gives half of what
it has left to it. The files are still byte for byte what one process writes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.core.settings import Settings
from app.generation.plan import BLOCK_SIZE
from tests.api_client import Api
from tests.datasets.flow import ORDER_JSON, ShardWatch, create_dataset, upload_schema, wait_for
from tests.datasets.processes import expected_file_sha256s
from tests.support.waiting import eventually

SPLIT_RECORDS = 2 * BLOCK_SIZE


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"workers": 2, "shard_records": 10_000_000, "split_records": SPLIT_RECORDS,
                                       "dispatch_interval_seconds": 0.2})


async def test_a_running_shard_splits_for_an_idle_worker(api: Api, settings: Settings) -> None:
    root = api.root
    project = await api.create_project(root, "Splits")
    schema = await upload_schema(api, root, ORDER_JSON, "customer_order.schema.json")
    first = await create_dataset(api, root, project["project_id"], schema["schema_id"], 200_000,
                                 types=["csv", "json"], params={"seed": 1})
    await wait_for(api, root, first["dataset_id"], until=("running",))
    n, params, types = 300_000, {"seed": 77, "records_per_file": 70_000}, ["csv", "json"]
    later = await create_dataset(api, root, project["project_id"], schema["schema_id"], n, types=types, params=params)
    did = later["dataset_id"]
    watch = ShardWatch(settings.database_url, [first["dataset_id"]])
    mine = ShardWatch(settings.database_url, [did])
    try:
        async def sampled() -> dict[str, Any]:
            await asyncio.to_thread(watch.sample)
            await asyncio.to_thread(mine.sample)
            return await api.call("GET", f"/datasets/{did}", root, 200)

        body = await eventually(sampled, lambda b: b["status"] not in ("queued", "running"), timeout=240,
                                interval=0.05)
    finally:
        watch.close()
        mine.close()
    assert body["status"] == "completed", body
    # the first dataset found both workers idle: two shards at once; the second found none idle
    assert watch.first_shards[first["dataset_id"]] == 2
    assert mine.first_shards[did] == 1
    assert mine.seen_shards >= 2 and len(mine.workers) == 2, (mine.seen_shards, mine.workers)
    assert body["records_generated"] == n and body["progress"] == 1.0 and body["attempt"] == 1
    for fmt in types:
        expected = expected_file_sha256s(ORDER_JSON, "customer_order.schema.json", params, n, fmt)
        got = [f["sha256"] for f in sorted(body["files"], key=lambda f: f["file_index"]) if f["format"] == fmt]
        assert got == expected, fmt
        assert [f["records"] for f in sorted(body["files"], key=lambda f: f["file_index"]) if f["format"] == fmt] \
            == [70_000, 70_000, 70_000, 70_000, 20_000]
    assert (await wait_for(api, root, first["dataset_id"]))["status"] == "completed"
