"""One dataset cut into shards and produced by several local-pool processes at once: every file,
including files whose records come from several shards, is byte-identical to what one process
writes; both pool processes produced parts of it; cancelling stops every shard and leaves nothing."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path
from typing import Any

import pytest

from app.core.jobs.sharding import shard_ranges, split_point
from app.core.settings import Settings
from app.generation.plan import BLOCK_SIZE
from tests.api_client import Api
from tests.datasets.flow import (
    ORDER_JSON,
    ORDER_XSD,
    ShardWatch,
    create_dataset,
    download,
    upload_schema,
    wait_for,
)
from tests.datasets.processes import expected_file_sha256s
from tests.support.s3_server import stored_under
from tests.support.waiting import eventually

SHARD_RECORDS = 2 * BLOCK_SIZE


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"workers": 2, "shard_records": SHARD_RECORDS})


def test_shard_ranges_cover_the_records_in_whole_blocks() -> None:
    assert shard_ranges(0, 100, 8) == [(0, 0)]
    assert shard_ranges(10, 250_000, 64) == [(0, 10)]
    ranges = shard_ranges(50_000, SHARD_RECORDS, 64)
    assert ranges[0][0] == 0 and ranges[-1][1] == 50_000 and len(ranges) == 7
    assert all(a % BLOCK_SIZE == 0 and b > a for a, b in ranges)
    assert all(ranges[i][1] == ranges[i + 1][0] for i in range(len(ranges) - 1))
    assert len(shard_ranges(10_000_000, 1, 16)) == 16  # the cap wins over tiny shards


def test_idle_workers_cut_a_dataset_finer_and_a_running_shard_splits_at_a_block_edge() -> None:
    big = 1_000_000
    assert len(shard_ranges(big, big, 64)) == 1
    assert len(shard_ranges(big, big, 64, idle=2, split_records=100_000)) == 2
    assert len(shard_ranges(big, big, 64, idle=20, split_records=300_000)) == 3  # each >= split_records
    assert len(shard_ranges(big, big, 64, idle=2, split_records=600_000)) == 1
    assert len(shard_ranges(big, 250_000, 64, idle=2, split_records=100_000)) == 4  # size still caps a shard
    assert split_point(0, big, 100_000) == 503_808 and 503_808 % BLOCK_SIZE == 0
    assert split_point(7_000, 40_960, 8_192) == 24_576  # from a file edge: the block edge past the middle
    assert split_point(0, 200_000, 100_000) is None  # a half would be short of split_records
    assert split_point(big - 10, big, 1) is None  # less than a block left


@pytest.mark.parametrize(("filename", "content", "types"), [
    ("customer_order.schema.json", ORDER_JSON, ["csv", "json", "sql", "ndjson"]),
    ("customer_order.xsd", ORDER_XSD, ["xml", "csv"]),
])
async def test_two_processes_write_one_dataset_byte_identical_to_one_process(
        api: Api, settings: Settings, tmp_path: Path, filename: str, content: bytes, types: list[str]) -> None:
    root = api.root
    project = await api.create_project(root, "Shards")
    schema = await upload_schema(api, root, content, filename)
    n, per_file = 25_000, 7_000  # 4 shards of up to 8,192 records; files of 7,000 straddle them
    params = {"seed": 4242, "records_per_file": per_file}
    ds = await create_dataset(api, root, project["project_id"], schema["schema_id"], n, types=types, params=params)
    watch = ShardWatch(settings.database_url, [ds["dataset_id"]])
    try:
        async def sampled() -> dict[str, Any]:
            await asyncio.to_thread(watch.sample)
            return await api.call("GET", f"/datasets/{ds['dataset_id']}", root, 200)

        body = await eventually(sampled, lambda b: b["status"] not in ("queued", "running"), timeout=180,
                                interval=0.05)
        assert body["status"] == "completed", body
        assert watch.seen_shards == 4
        assert len(watch.workers) == 2, watch.workers  # both pool processes produced parts of it
        assert await asyncio.to_thread(watch.left) == 0  # work rows go with the run
    finally:
        watch.close()
    assert body["records_generated"] == n and body["progress"] == 1.0 and body["attempt"] == 1
    files = sorted((f["format"], f["file_index"], f["records"]) for f in body["files"])
    assert files == sorted((fmt, i, min(per_file, n - i * per_file)) for fmt in types for i in range(4))
    for fmt in types:
        expected = expected_file_sha256s(content, filename, params, n, fmt)
        got = [f["sha256"] for f in sorted(body["files"], key=lambda f: f["file_index"]) if f["format"] == fmt]
        assert got == expected, fmt
    r = await download(api, root, ds["dataset_id"], types[0], file_index=1)
    assert r.status_code == 200
    assert hashlib.sha256(r.content).hexdigest() == expected_file_sha256s(content, filename, params, n, types[0])[1]
    # no parts, no work folders: the worker removes them just after its completing commit (a
    # worker killed in between leaves them to the retention sweep), so allow it a moment
    folder = f"datasets/{ds['dataset_id']}"
    await eventually(lambda: asyncio.to_thread(lambda: sorted({k.split("/")[0] for k in stored_under(
                         settings, folder, empty_folders=True)})),
                     lambda left: left == ["files"], timeout=300, what="only files/ left")


async def test_cancelling_a_sharded_dataset_stops_every_shard(api: Api, settings: Settings) -> None:
    root = api.root
    project = await api.create_project(root, "Shards cancel")
    schema = await upload_schema(api, root, ORDER_JSON, "customer_order.schema.json")
    ds = await create_dataset(api, root, project["project_id"], schema["schema_id"], 400_000, types=["json", "csv"],
                              params={"seed": 1})
    did = ds["dataset_id"]
    body = await wait_for(api, root, did, until=("queued", "running"), progress_above=0.02, timeout=300)
    assert body["status"] in ("queued", "running"), body
    await api.call("DELETE", f"/datasets/{did}", root, 200)
    watch = ShardWatch(settings.database_url, [did])
    try:
        # the reaper drops the work rows; the workers lose their fence and remove their parts
        def left() -> list[str]:
            return ["work rows"] * watch.left() + stored_under(settings, f"datasets/{did}")

        await eventually(lambda: asyncio.to_thread(left), lambda rest: not rest, timeout=300,
                         what="work rows and parts removed")
    finally:
        watch.close()
    body = await wait_for(api, root, did)
    assert body["status"] == "cancelled" and body["files"] == []
    # the pool is free again: a new dataset completes
    small = await create_dataset(api, root, project["project_id"], schema["schema_id"], 100, types=["csv"])
    assert (await wait_for(api, root, small["dataset_id"]))["status"] == "completed"
