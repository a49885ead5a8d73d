"""Helpers for integration tests: create webhooks and wait for deliveries over HTTP."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from tests.api_client import Actor, Api


async def create_webhook(api: Api, admin: Actor, url: str, **extra: Any) -> dict[str, Any]:
    return await api.call("POST", "/integrations", admin, 201, json={
        "name": extra.pop("name", "hook"), "provider": "webhook", "config": {"url": url}, **extra})


async def deliveries(api: Api, actor: Actor, integration_id: int) -> list[dict[str, Any]]:
    return await api.call("GET", f"/integrations/{integration_id}/deliveries", actor, 200)


async def wait_for_deliveries(api: Api, actor: Actor, integration_id: int,
                              done: Callable[[list[dict[str, Any]]], bool], timeout: float = 15.0
                              ) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while True:
        rows = await deliveries(api, actor, integration_id)
        if done(rows):
            return rows
        assert time.monotonic() < deadline, f"deliveries did not settle in {timeout}s: {rows}"
        await asyncio.sleep(0.05)


def settled(count: int) -> Callable[[list[dict[str, Any]]], bool]:
    return lambda rows: len(rows) >= count and all(r["status"] != "pending" for r in rows)
