"""A local-pool worker process dies (kill -9, as the OOM killer would) while the server keeps
running: the dataset is re-queued and finishes in a fresh worker process; a dataset whose every
attempt dies ends `failed` with a reason, its creator is notified, and its files are removed."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import pytest

from app.core.settings import Settings
from tests.api_client import Api
from tests.datasets.flow import ORDER_JSON, create_dataset, upload_schema, wait_for
from tests.datasets.processes import expected_sha256
from tests.datasets.test_celery import lockers
from tests.support.processes import alive, expire_leases
from tests.support.s3_server import stored_under
from tests.support.waiting import eventually

RECORDS = 200_000
# long enough that a worker starved of CPU on a loaded machine never loses its shard by itself:
# the test expires the lease of the worker it kills (the seconds running out, without the wait)
LEASE_SECONDS = 600.0
WAIT = 300.0  # deadline for a dataset to progress or finish, however slowly the machine runs


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"job_lease_seconds": LEASE_SECONDS, "job_max_attempts": 2})


async def _kill_worker_once_running(api: Api, settings: Settings, dataset_id: int, attempt: int) -> None:
    """Wait until attempt `attempt` of the dataset has made progress, SIGKILL its process, and once
    it is gone let its lease lapse."""
    def progressing(body: dict[str, Any]) -> bool:
        assert body["status"] in ("queued", "running"), body
        return body["status"] == "running" and body["attempt"] == attempt and body["progress"] > 0

    await eventually(lambda: api.call("GET", f"/datasets/{dataset_id}", api.root, 200), progressing, timeout=WAIT,
                     interval=0.05)
    (locker,) = lockers(settings.database_url, [dataset_id])
    pid = int(locker.rsplit(":", 1)[1])
    os.kill(pid, signal.SIGKILL)
    # SIGKILL is delivered asynchronously; a dead process renews nothing
    await eventually(lambda: asyncio.to_thread(alive, pid), lambda running: not running, timeout=WAIT,
                     what=f"pool process {pid} gone")
    assert await asyncio.to_thread(expire_leases, settings.database_url, dataset_id, {pid}) == 1


async def test_lost_pool_process_is_replaced_and_attempts_are_bounded(api: Api, settings: Settings) -> None:
    root = api.root
    assert root is not None
    project = await api.create_project(root, "Pool")
    schema = await upload_schema(api, root, ORDER_JSON, "customer_order.schema.json")
    pid, sid = project["project_id"], schema["schema_id"]

    once = await create_dataset(api, root, pid, sid, RECORDS, name="killed once", types=["csv"],
                                params={"seed": 3})
    await _kill_worker_once_running(api, settings, once["dataset_id"], 1)
    done = await wait_for(api, root, once["dataset_id"], timeout=WAIT)
    assert done["status"] == "completed" and done["attempt"] == 2, done
    assert done["files"][0]["sha256"] == expected_sha256(ORDER_JSON, "customer_order.schema.json", {"seed": 3},
                                                         RECORDS, "csv")

    doomed = await create_dataset(api, root, pid, sid, RECORDS, name="killed twice", types=["csv"])
    await _kill_worker_once_running(api, settings, doomed["dataset_id"], 1)
    await _kill_worker_once_running(api, settings, doomed["dataset_id"], 2)
    failed = await wait_for(api, root, doomed["dataset_id"], timeout=WAIT)
    assert failed["status"] == "failed" and "2 attempts" in failed["error"], failed
    assert failed["files"] == [] and failed["finished_at"] is not None
    assert not stored_under(settings, f"datasets/{doomed['dataset_id']}", empty_folders=True)
    notes = await api.call("GET", "/notifications", root, 200)
    failure = [n for n in notes if n["data"].get("dataset_id") == doomed["dataset_id"]]
    assert [n["type"] for n in failure] == ["dataset.failed"], notes
    assert failure[0]["message"] == failed["error"]

    # and the service still generates afterwards
    after = await create_dataset(api, root, pid, sid, 100, types=["csv"])
    assert (await wait_for(api, root, after["dataset_id"], timeout=WAIT))["status"] == "completed"
