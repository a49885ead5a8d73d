"""Helpers for integration tests: create webhooks and wait for deliveries over HTTP."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.api_client import Actor, Api
from tests.support.waiting import eventually


async def create_webhook(api: Api, admin: Actor, url: str, **extra: Any) -> dict[str, Any]:
    return await api.call("POST", "/integrations", admin, 201, json={
        "name": extra.pop("name", "hook"), "provider": "webhook", "config": {"url": url}, **extra})


async def deliveries(api: Api, actor: Actor, integration_id: int) -> list[dict[str, Any]]:
    return await api.call("GET", f"/integrations/{integration_id}/deliveries", actor, 200)


async def wait_for_deliveries(api: Api, actor: Actor, integration_id: int,
                              done: Callable[[list[dict[str, Any]]], bool], timeout: float = 120.0
                              ) -> list[dict[str, Any]]:
    return await eventually(lambda: deliveries(api, actor, integration_id), done, timeout=timeout,
                            what="deliveries settling")


def settled(count: int) -> Callable[[list[dict[str, Any]]], bool]:
    return lambda rows: len(rows) >= count and all(r["status"] != "pending" for r in rows)
