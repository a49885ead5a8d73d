"""Download links for the browser: create_download_link checks what GET /data/{dataset_id} checks,
and its URL downloads without an Authorization header, for that file only, for 5 minutes, and
only while its user may still download it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from app.core.security import jwt_tokens
from app.core.settings import Settings
from tests.api_client import Actor, Api
from tests.datasets.flow import ORDER_JSON, create_dataset, download, upload_schema, wait_for

LINK = """mutation Link($dataset_id: Int!, $format: String!, $file_index: Int!) {
  create_download_link(dataset_id: $dataset_id, format: $format, file_index: $file_index) { url expires_at }
}"""


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"dispatch_interval_seconds": 0.2})


async def _link(api: Api, actor: Actor, dataset_id: int, fmt: str, file_index: int = 0) -> dict[str, Any]:
    return await api.graphql(LINK, {"dataset_id": dataset_id, "format": fmt, "file_index": file_index}, actor)


async def _url(api: Api, actor: Actor, dataset_id: int, fmt: str, file_index: int = 0) -> str:
    body = await _link(api, actor, dataset_id, fmt, file_index)
    assert not body.get("errors"), body
    return str(body["data"]["create_download_link"]["url"])


def _error_code(body: dict[str, Any]) -> str:
    assert body["data"] is None and body["errors"], body
    return str(body["errors"][0]["extensions"]["code"])


async def _completed(api: Api, admin: Actor, record_count: int = 300) -> tuple[int, int]:
    project = await api.create_project(admin, "Links")
    schema = await upload_schema(api, admin, ORDER_JSON, "customer_order.schema.json")
    dataset = await create_dataset(api, admin, project["project_id"], schema["schema_id"], record_count,
                                   types=["csv", "json"], params={"seed": 3})
    assert (await wait_for(api, admin, dataset["dataset_id"]))["status"] == "completed"
    return project["project_id"], dataset["dataset_id"]


async def test_a_link_downloads_without_a_header(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    _, did = await _completed(api, admin)
    body = await _link(api, admin, did, "CSV")
    link = body["data"]["create_download_link"]
    parts = urlsplit(link["url"])
    assert parts.scheme == "" and parts.netloc == "" and parts.path == f"/api/v1/data/{did}"
    query = parse_qs(parts.query)
    assert query["format"] == ["csv"] and query["file_index"] == ["0"] and query["link"]
    expires = datetime.fromisoformat(link["expires_at"].replace("Z", "+00:00"))
    assert timedelta(minutes=4) < expires - datetime.now(UTC) <= timedelta(minutes=5)

    r = await api.client.get(link["url"])
    assert r.status_code == 200, r.text
    assert r.headers["content-disposition"] == f'attachment; filename="dataset-{did}.csv"'
    assert r.content == (await download(api, admin, did, "csv")).content
    ranged = await api.client.get(link["url"], headers={"Range": "bytes=0-9"})
    assert ranged.status_code == 206 and ranged.content == r.content[:10]
    # a format that was not generated is rendered on first download, as with the header
    xml = await api.client.get(await _url(api, admin, did, "xml"))
    assert xml.status_code == 200 and xml.headers["content-type"] == "application/xml"
    audit = await api.call("GET", "/audit/logs", admin, 200, params={"action": "dataset.download"})
    assert audit and all(row["actor_username"] == admin.username for row in audit)


async def test_a_link_opens_one_file_only(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    _, did = await _completed(api, admin)
    url = await _url(api, admin, did, "csv")
    token = parse_qs(urlsplit(url).query)["link"][0]
    base = f"/api/v1/data/{did}"

    async def denied(params: dict[str, Any], detail: str) -> None:
        r = await api.client.get(base, params=params)
        assert r.status_code == 401, r.text
        assert detail in r.json()["detail"], r.json()

    await denied({"format": "json", "link": token}, "another file")
    await denied({"format": "csv", "file_index": 1, "link": token}, "another file")
    tampered = token[:-3] + ("AAA" if token[-3:] != "AAA" else "BBB")
    await denied({"format": "csv", "link": tampered}, "invalid")
    await denied({"format": "csv", "link": "not-a-token"}, "invalid")
    expired, _ = jwt_tokens.issue_link(secret=settings.signing_key(), purpose="download", ttl=timedelta(seconds=-5),
                                       claims={"sub": str(admin.id), "did": did, "fmt": "csv", "idx": 0})
    await denied({"format": "csv", "link": expired}, "expired")
    # an access token is not a link, and a link is not an access token
    await denied({"format": "csv", "link": admin.token}, "invalid")
    r = await api.client.get("/api/v1/users/me", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 401
    assert (await api.client.get(base, params={"format": "csv"})).status_code == 401
    r = await api.client.get(f"/api/v1/data/{did + 1}", params={"format": "csv", "link": token})
    assert r.status_code == 401 and "another file" in r.json()["detail"]


async def test_the_door_authorizes_again(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    project_id, did = await _completed(api, admin)
    viewer = await api.create_user(admin, "Tester")
    await api.add_member(admin, project_id, viewer.id, "view")
    leaving = await api.create_user(admin, "Tester")
    await api.add_member(admin, project_id, leaving.id, "view")

    kept = await _url(api, viewer, did, "json")
    lost = await _url(api, leaving, did, "json")
    await api.call("POST", f"/projects/{project_id}/remove-user", admin, 200, json={"user_id": leaving.id})
    r = await api.client.get(lost)
    assert r.status_code == 404 and r.json()["detail"]
    assert (await api.client.get(kept)).status_code == 200

    await api.call("PATCH", f"/users/{viewer.id}", admin, 200, json={"is_active": False})
    r = await api.client.get(kept)
    assert r.status_code == 401 and "inactive" in r.json()["detail"]

    # logging out ends the links made with that session
    token = await api.token(admin.username, admin.password)
    session = Actor(admin.id, admin.username, admin.password, token, admin.tenant_id)
    url = await _url(api, session, did, "csv")
    assert (await api.client.get(url)).status_code == 200
    await api.call("GET", "/users/logout", session, 200)
    r = await api.client.get(url)
    assert r.status_code == 401 and "session" in r.json()["detail"]


async def test_a_link_is_refused_where_the_download_would_be(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    project_id, did = await _completed(api, admin)
    assert _error_code(await _link(api, admin, did, "pdf")) == "unknown_format"
    assert _error_code(await _link(api, admin, did, "csv", 3)) == "file_not_found"
    assert _error_code(await _link(api, admin, did, "csv", -1)) == "file_not_found"
    schema_id = (await api.call("GET", f"/datasets/{did}", admin, 200))["schema_id"]
    queued = await create_dataset(api, admin, project_id, schema_id, 10, params={"deferred": True})
    assert _error_code(await _link(api, admin, queued["dataset_id"], "csv")) == "dataset_not_completed"
    _, stranger = await api.create_tenant()
    assert _error_code(await _link(api, stranger, did, "csv")) == "dataset_not_found"
    outsider = await api.create_user(admin, "Tester")
    assert _error_code(await _link(api, outsider, did, "csv")) == "dataset_not_found"
    body = await api.graphql(LINK, {"dataset_id": did, "format": "csv", "file_index": 0})
    assert _error_code(body) == "unauthenticated"
