"""The service answers health checks and its documents on both databases."""

from __future__ import annotations

from pathlib import Path

import httpx


async def test_health_and_documents(client: httpx.AsyncClient) -> None:
    assert (await client.get("/healthz")).json() == {"status": "ok"}
    assert (await client.get("/readyz")).status_code == 200
    spec = (await client.get("/api/v1/openapi.json")).json()
    assert "/users/token" in spec["paths"]
    page = await client.get("/api/reference")
    assert page.status_code == 200 and "swagger-ui-bundle.js" in page.text and "http" not in page.text.split("<script")[1][:60]
    # the reference's assets are served locally, and they are Swagger UI 5: 4.x cannot read OpenAPI 3.1
    assert spec["openapi"].startswith("3.1")
    bundle = await client.get("/api/reference/static/swagger-ui-bundle.js")
    assert bundle.status_code == 200 and b"SwaggerUIBundle" in bundle.content
    assert (await client.get("/api/reference/static/swagger-ui.css")).status_code == 200
    version = (Path(__file__).resolve().parents[2] / "app" / "rest" / "static" / "swagger-ui" / "VENDORED.md").read_text()
    assert "swagger-ui-dist@5." in version
