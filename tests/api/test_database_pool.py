"""The request-serving engine keeps its connections (app/core/database.py): 50 clients at once
are served over at most `database_pool_size` connections, opened once and never closed and
reopened in between (with overflow, one connection in 17 requests was a new one: on SQLite a
thread started and joined, on PostgreSQL a server process forked)."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from sqlalchemy import event

from tests.api_client import Api

CLIENTS = 50
REQUESTS = 8


async def test_fifty_clients_reuse_the_pools_connections(app: Any, api: Api) -> None:
    root = api.root
    assert root is not None
    project = await api.call("POST", "/projects/create", root, 201, json={"name": "Pooled"})
    engine = app.state.engine.sync_engine
    seen: Counter[str] = Counter()

    def connected(*_: Any) -> None:
        seen["connect"] += 1

    def closed(*_: Any) -> None:
        seen["close"] += 1

    event.listen(engine, "connect", connected)
    event.listen(engine, "close", closed)
    try:
        async def client(i: int) -> None:
            for j in range(REQUESTS):
                path = f"/projects/{project['project_id']}" if (i + j) % 2 else "/projects"
                r = await api.request("GET", path, root)
                assert r.status_code == 200, r.text

        await asyncio.gather(*(client(i) for i in range(CLIENTS)))
    finally:
        event.remove(engine, "connect", connected)
        event.remove(engine, "close", closed)
    pool_size = app.state.settings.database_pool_size
    assert seen["close"] == 0, seen
    assert seen["connect"] <= pool_size, seen
    assert engine.pool.checkedout() == 0
