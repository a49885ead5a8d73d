"""The download door over HTTP: media types and file names per format, Range requests, checksums,
formats rendered on request, and deletion (completed and running datasets) removing the files."""

from __future__ import annotations

import asyncio
import hashlib
import time
from typing import Any

import pytest

from app.core.jobs.worker_run import PROGRESS_EVERY_SECONDS
from app.core.settings import Settings
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from tests.api_client import Api
from tests.datasets.flow import ORDER_JSON, create_dataset, download, upload_schema, wait_for
from tests.support.processes import pool_cpu_seconds
from tests.support.s3_server import stored_under
from tests.support.waiting import eventually

# every test here runs with the files in the local folder and in an S3 server (moto): tests/conftest.py


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """Two pool processes, as in production: on-demand renders of one format can race."""
    return settings.model_copy(update={"workers": 2})


CANCELLED_RECORDS = 3_000_000
WAIT = 300.0  # deadline for the pool to act, however slowly a loaded machine runs it
MEDIA = {"csv": "text/csv; charset=utf-8", "json": "application/json", "xml": "application/xml",
         "sql": "application/sql"}


async def test_headers_range_checksums_and_rendering(api: Api, settings: Settings) -> None:
    root = api.root
    assert root is not None
    project = await api.create_project(root, "Downloads")
    schema = await upload_schema(api, root, ORDER_JSON, "customer_order.schema.json")
    only_csv = await create_dataset(api, root, project["project_id"], schema["schema_id"], 700, types=["csv"],
                                    params={"seed": 31})
    all_four = await create_dataset(api, root, project["project_id"], schema["schema_id"], 700,
                                    types=["csv", "json", "xml", "sql"], params={"seed": 31})
    a = await wait_for(api, root, only_csv["dataset_id"])
    b = await wait_for(api, root, all_four["dataset_id"])
    assert a["status"] == b["status"] == "completed", (a, b)
    assert [f["format"] for f in a["files"]] == ["csv"]
    did = a["dataset_id"]

    # three clients ask at once for a format that was never written: one rendering, three answers
    racing = await asyncio.gather(*(download(api, root, did, "json") for _ in range(3)))
    assert [r.status_code for r in racing] == [200, 200, 200], [r.text[:200] for r in racing]
    assert len({r.content for r in racing}) == 1
    listed = (await api.call("GET", f"/datasets/{did}", root, 200))["files"]
    assert sorted((f["format"], f["file_index"]) for f in listed) == [("csv", 0), ("json", 0)]

    for fmt in ("csv", "json", "xml", "sql"):
        r = await download(api, root, did, fmt)
        assert r.status_code == 200, (fmt, r.text)
        assert r.headers["content-type"] == MEDIA[fmt]
        assert r.headers["content-disposition"] == f'attachment; filename="dataset-{did}.{fmt}"'
        digest = hashlib.sha256(r.content).hexdigest()
        assert r.headers["x-content-sha256"] == digest
        assert int(r.headers["content-length"]) == len(r.content)
        listed = (await api.call("GET", f"/datasets/{did}", root, 200))["files"]
        row = next(f for f in listed if f["format"] == fmt)
        assert row["sha256"] == digest and row["size_bytes"] == len(r.content) and row["records"] == 700
        # rendered on request from the same records: the pre-generated dataset of the same seed matches
        same = next(f for f in b["files"] if f["format"] == fmt)
        assert same["sha256"] == digest, fmt
    listed = (await api.call("GET", f"/datasets/{did}", root, 200))["files"]
    assert sorted(f["format"] for f in listed) == ["csv", "json", "sql", "xml"]

    full = (await download(api, root, did, "csv")).content
    r = await download(api, root, did, "csv", headers={"Range": "bytes=10-99"})
    assert r.status_code == 206, r.text
    assert r.content == full[10:100]
    assert r.headers["content-range"] == f"bytes 10-99/{len(full)}"
    r = await download(api, root, did, "csv", headers={"Range": f"bytes=-{len(full) // 3}"})
    assert r.status_code == 206 and r.content == full[-(len(full) // 3):]
    r = await download(api, root, did, "csv", headers={"Range": f"bytes={len(full) + 10}-"})
    assert r.status_code == 416, r.status_code

    # deleting a completed dataset removes its rows and its files
    assert stored_under(settings, f"datasets/{did}")
    r = await api.request("DELETE", f"/datasets/{did}", root)
    assert r.status_code == 200, r.text
    assert not stored_under(settings, f"datasets/{did}")
    assert (await api.request("GET", f"/datasets/{did}", root)).status_code == 404
    assert (await download(api, root, did, "csv")).status_code == 404
    # the other dataset is untouched
    assert (await download(api, root, b["dataset_id"], "xml")).status_code == 200


class _Sink:
    def write(self, data: bytes) -> int:
        return len(data)


def _csv_cpu_seconds_per_record(records: int = 50_000) -> float:
    """CPU seconds one process spends per csv record of the benchmark schema (compiling aside):
    unlike wall-clock time, the same on an idle machine and a loaded one."""
    plan = compile_plan(load_schema(ORDER_JSON, "customer_order.schema.json"), [], {"seed": 1}, record_count=records)
    started = time.thread_time()
    plan.write_file("csv", _Sink(), 0)
    return (time.thread_time() - started) / records


async def test_deleting_a_running_dataset_cancels_it_and_removes_its_files(api: Api, settings: Settings,
                                                                          app: Any) -> None:
    root = api.root
    assert root is not None
    executor = app.state.services.executor
    project = await api.create_project(root, "Cancel")
    schema = await upload_schema(api, root, ORDER_JSON, "customer_order.schema.json")
    ds = await create_dataset(api, root, project["project_id"], schema["schema_id"], CANCELLED_RECORDS, types=["csv"])
    did = ds["dataset_id"]
    body = await wait_for(api, root, did, until=("running",), progress_above=0, timeout=WAIT)
    assert body["status"] == "running", body
    folder = f"datasets/{did}"
    # on S3 a part being written is an unfinished multipart upload until the part is whole
    await eventually(lambda: asyncio.to_thread(stored_under, settings, folder), timeout=WAIT,
                     what="the worker writing its first part")
    # both pool processes work on it (two shards, one each)
    assert settings.workers == 2 and executor.free_slots() == 0
    spent_before = pool_cpu_seconds()
    left = CANCELLED_RECORDS - (await api.call("GET", f"/datasets/{did}", root, 200))["records_generated"]

    r = await api.request("DELETE", f"/datasets/{did}", root)
    assert r.status_code == 200 and r.json()["status"] == "cancelled", r.text
    # each worker loses its fence at its next progress update, removes what it wrote and frees its slot

    async def free_slots() -> int:
        return int(executor.free_slots())

    await eventually(free_slots, lambda free: free == settings.workers, timeout=WAIT,
                     what="both pool processes done with the cancelled dataset")
    # ... having stopped at once instead of writing the rest: counted in CPU time, which a loaded
    # machine does not stretch. At most what each did until its next progress update, and clean-up
    spent = pool_cpu_seconds() - spent_before
    limit = settings.workers * (PROGRESS_EVERY_SECONDS + 0.5)
    assert spent < limit, f"the cancelled workers spent {spent:.2f} s of CPU after the cancel"
    rest = left * await asyncio.to_thread(_csv_cpu_seconds_per_record)
    assert rest > 3 * limit, f"the rest costs only {rest:.1f} s of CPU: cancel a larger dataset"
    assert not await asyncio.to_thread(stored_under, settings, folder)
    body = await api.call("GET", f"/datasets/{did}", root, 200)
    assert body["status"] == "cancelled" and body["files"] == [] and body["error"], body
    r = await download(api, root, did, "csv")
    assert r.status_code == 409 and "cancelled" in r.json()["detail"]
    # and both slots generate again
    small = [await create_dataset(api, root, project["project_id"], schema["schema_id"], 100, types=["csv"])
             for _ in range(2)]
    for ds in small:
        assert (await wait_for(api, root, ds["dataset_id"], timeout=WAIT))["status"] == "completed"
