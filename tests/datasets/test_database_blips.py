"""The database dropping the job machinery's connections mid-dataset (pg_terminate_backend on every
other connection of the database, again and again, as a restart or a failover does): the
workers' transactions that lose their connection are run again and the dataset completes, first
try, with the bytes of a clean run. PostgreSQL only: SQLite has no connections to lose."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
import pytest
from sqlalchemy.engine import make_url

from app.core.settings import Settings
from tests.api_client import Api
from tests.datasets.flow import FINAL, ORDER_JSON, create_dataset, download, upload_schema
from tests.datasets.processes import expected_sha256
from tests.support.waiting import eventually

RECORDS = 150_000
SEED = 13
ROUNDS = 40  # terminations, INTERVAL apart: many land inside a worker's transaction
INTERVAL = 0.1


def _terminate_others(database_url: str) -> int:
    """Terminate every other connection to the test's database; returns how many there were."""
    url = make_url(database_url)
    dsn = f"host={url.host} port={url.port or 5432} user={url.username} dbname={url.database}"
    if url.password:
        dsn += f" password={url.password}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchall()
    return len(rows)


async def _status(api: Api, actor: Any, dataset_id: int) -> dict[str, Any] | None:
    """The dataset, or None while the request path itself meets a dropped connection."""
    try:
        r = await api.request("GET", f"/datasets/{dataset_id}", actor)
    except Exception:  # the in-process app's own pooled connection was the one dropped
        return None
    return r.json() if r.status_code == 200 else None


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_connections_dropped_mid_dataset(api: Api, settings: Settings) -> None:
    root = api.root
    assert root is not None
    project = await api.create_project(root, "Blips")
    schema = await upload_schema(api, root, ORDER_JSON, "customer_order.schema.json")
    ds = await create_dataset(api, root, project["project_id"], schema["schema_id"], RECORDS, types=["csv"],
                              params={"seed": SEED})
    did = ds["dataset_id"]
    await eventually(lambda: _status(api, root, did), lambda b: b is not None and b["progress"] > 0.05,
                     timeout=300, what="the dataset generating")
    dropped = 0
    for _ in range(ROUNDS):
        dropped += await asyncio.to_thread(_terminate_others, settings.database_url)
        await asyncio.sleep(INTERVAL)
    assert dropped >= ROUNDS  # the worker's connection at least, each round
    done = await eventually(lambda: _status(api, root, did), lambda b: b is not None and b["status"] in FINAL,
                            timeout=600, what="the dataset finishing")
    assert done is not None and done["status"] == "completed", done
    assert done["attempt"] == 1, done
    expected = expected_sha256(ORDER_JSON, "customer_order.schema.json", {"seed": SEED}, RECORDS, "csv")
    assert done["files"][0]["sha256"] == expected
    r = await download(api, root, did, "csv")
    assert r.status_code == 200 and r.headers["x-content-sha256"] == expected
