"""An object store that stops answering for a while (moto's server stopped with SIGSTOP, then
resumed) mid-dataset: the calls in flight time out and are tried again with backoff until the
store answers, so the dataset is delayed, not failed, and its bytes are those of a clean run.
Meanwhile /readyz answers 503 within its timeout instead of hanging with the store.

Each test runs its own moto server (the session's serves other tests of this process), frozen for
several times the calls' timeout (set small here; seconds rather than the production minutes)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator

import httpx
import pytest

from app.core.settings import Settings
from tests.api_client import Api
from tests.datasets.flow import ORDER_JSON, create_dataset, download, upload_schema, wait_for
from tests.datasets.processes import expected_sha256
from tests.support.s3_server import own_moto, s3_client, stored_under
from tests.support.waiting import eventually

CALL_TIMEOUT_SECONDS = 2.0  # how long one store call waits for an answer before it is retried
FREEZE_SECONDS = 12.0  # several call timeouts: without retries a part upload fails
RECORDS = 150_000  # about 50 MB of JSON: ten 5 MiB parts, so the freeze meets uploads in flight
SEED = 9


@pytest.fixture
def storage() -> str:
    return "s3"


@pytest.fixture
def moto() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A moto server of this test's own (endpoint, process), stopped with the test."""
    with own_moto() as server:
        yield server


@pytest.fixture
def settings(settings: Settings, moto: tuple[str, subprocess.Popen[bytes]], s3_server: str) -> Settings:
    endpoint, _ = moto
    bucket = f"tdg-{uuid.uuid4().hex[:12]}"
    s3_client(endpoint).create_bucket(Bucket=bucket)
    return settings.model_copy(update={
        "storage_url": f"s3://{bucket}/tdg", "s3_endpoint_url": endpoint, "export_part_bytes": 5 * 1024 * 1024,
        "storage_timeout_seconds": CALL_TIMEOUT_SECONDS, "storage_retry_seconds": 120.0,
        "ready_timeout_seconds": 2.0,
    })


class _Frozen:
    """The store's process stopped (SIGSTOP) until the block ends (SIGCONT)."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc

    def __enter__(self) -> None:
        os.kill(self.proc.pid, signal.SIGSTOP)

    def __exit__(self, *_: object) -> None:
        os.kill(self.proc.pid, signal.SIGCONT)


async def test_a_store_frozen_mid_dataset_delays_it(api: Api, settings: Settings,
                                                    moto: tuple[str, subprocess.Popen[bytes]]) -> None:
    root = api.root
    assert root is not None
    project = await api.create_project(root, "Freeze")
    schema = await upload_schema(api, root, ORDER_JSON, "customer_order.schema.json")
    ds = await create_dataset(api, root, project["project_id"], schema["schema_id"], RECORDS, types=["json"],
                              params={"seed": SEED})
    did = ds["dataset_id"]
    running = await wait_for(api, root, did, until=("running",), progress_above=0.05, timeout=300)
    assert running["status"] == "running" and running["progress"] < 0.8, running
    with _Frozen(moto[1]):
        await asyncio.sleep(FREEZE_SECONDS)
        during = await api.call("GET", f"/datasets/{did}", root, 200)
        assert during["status"] == "running", during
    done = await wait_for(api, root, did, timeout=600)
    assert done["status"] == "completed", done
    assert done["attempt"] == 1, done  # not re-run: the same worker waited out the freeze
    expected = expected_sha256(ORDER_JSON, "customer_order.schema.json", {"seed": SEED}, RECORDS, "json")
    assert done["files"][0]["sha256"] == expected
    r = await download(api, root, did, "json")
    assert r.status_code == 200 and r.headers["x-content-sha256"] == expected
    # the assembling worker removes the parts right after its completing commit
    await eventually(lambda: asyncio.to_thread(stored_under, settings, f"datasets/{did}"),
                     lambda left: left == ["files/data-0000.json"], timeout=120, what="no part, no open upload")


async def test_readyz_answers_503_in_time_while_the_store_hangs(client: httpx.AsyncClient, settings: Settings,
                                                                moto: tuple[str, subprocess.Popen[bytes]]) -> None:
    assert (await client.get("/readyz")).status_code == 200
    with _Frozen(moto[1]):
        began = time.monotonic()
        r = await client.get("/readyz")
        took = time.monotonic() - began
        assert r.status_code == 503, r.text
        assert "store" in r.json()["detail"], r.text
        assert took < settings.ready_timeout_seconds + 1.5, took
    r = await asyncio.wait_for(client.get("/readyz"), timeout=60)  # the store answers again
    assert r.status_code == 200, r.text
