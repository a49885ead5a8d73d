"""The service answers health checks and its documents on both databases."""

from __future__ import annotations

import httpx


async def test_health_and_documents(client: httpx.AsyncClient) -> None:
    assert (await client.get("/healthz")).json() == {"status": "ok"}
    assert (await client.get("/readyz")).status_code == 200
    spec = (await client.get("/api/v1/openapi.json")).json()
    assert "/users/token" in spec["paths"]
    page = await client.get("/api/reference")
    assert page.status_code == 200 and "swagger-ui-bundle.js" in page.text and "http" not in page.text.split("<script")[1][:60]
