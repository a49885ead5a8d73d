"""Integrations over HTTP: providers, create/list/update/delete, write-only secrets, roles,
tenant isolation and the 4xx paths."""

from __future__ import annotations

from tests.api_client import Api
from tests.integrations.flow import create_webhook
from tests.integrations.receiver import closed_port

S3 = {"endpoint_url": "http://127.0.0.1:9", "bucket": "tdg-data", "region": "eu-west-1", "prefix": "exports",
      "access_key_id": "AKIDEXAMPLE", "secret_access_key": "very-secret-key-123"}


async def test_providers(api: Api) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    providers = {p["name"]: p for p in await api.call("GET", "/integrations/providers", tester, 200)}
    assert set(providers) == {"webhook", "s3"}
    s3_fields = {f["name"]: f for f in providers["s3"]["fields"]}
    assert s3_fields["secret_access_key"]["secret"] is True and s3_fields["bucket"]["secret"] is False
    assert {f["name"] for f in providers["webhook"]["fields"] if f["secret"]} == {"signing_secret"}
    await api.call("GET", "/integrations/providers", None, 401)


async def test_crud_roles_and_write_only_secrets(api: Api) -> None:
    _, admin = await api.create_tenant()
    manager = await api.create_user(admin, "Manager")
    tester = await api.create_user(admin, "Tester")
    url = f"http://127.0.0.1:{closed_port()}/hook"

    hook = await create_webhook(api, admin, url)
    assert hook["provider"] == "webhook" and hook["config"] == {"url": url} and hook["is_active"] is True
    assert hook["events"] == ["dataset.completed", "dataset.failed", "schema.uploaded", "project.created"]
    s3 = await api.call("POST", "/integrations", admin, 201, json={"name": "bucket", "provider": "s3", "config": S3})
    assert s3["signing_secret"] is None and s3["secret_fields"] == ["secret_access_key"]
    assert "secret_access_key" not in s3["config"] and s3["config"]["bucket"] == "tdg-data"

    for actor in (admin, manager):
        r = await api.request("GET", "/integrations", actor)
        assert r.status_code == 200 and r.headers["X-Total-Count"] == "2"
        assert hook["signing_secret"] not in r.text and S3["secret_access_key"] not in r.text
    await api.call("GET", "/integrations", tester, 403)
    for actor in (manager, tester):
        await api.call("POST", "/integrations", actor, 403, json={"name": "x", "provider": "webhook",
                                                                  "config": {"url": url}})
        await api.call("PUT", f"/integrations/{hook['integration_id']}", actor, 403, json={"name": "y"})
        await api.call("DELETE", f"/integrations/{hook['integration_id']}", actor, 403)
        await api.call("POST", f"/integrations/{hook['integration_id']}/test", actor, 403)
    await api.call("GET", f"/integrations/{hook['integration_id']}/deliveries", manager, 200)
    await api.call("GET", f"/integrations/{hook['integration_id']}/deliveries", tester, 403)

    # validation
    await api.call("POST", "/integrations", admin, 422, json={"name": "x", "provider": "ftp", "config": {}})
    await api.call("POST", "/integrations", admin, 400, json={"name": "x", "provider": "webhook", "config": {}})
    await api.call("POST", "/integrations", admin, 400, json={"name": "x", "provider": "webhook"})
    await api.call("POST", "/integrations", admin, 422, json={"name": "x", "provider": "webhook",
                                                              "config": {"url": url, "extra": 1}})
    await api.call("POST", "/integrations", admin, 422, json={"name": "x", "provider": "webhook",
                                                              "config": {"url": url}, "events": ["nope"]})
    await api.call("POST", "/integrations", admin, 422, json={"name": "x", "provider": "s3", "config": S3,
                                                              "events": ["project.created"]})
    await api.call("POST", "/integrations", admin, 422, json={"name": "x", "provider": "s3",
                                                              "config": {**S3, "bucket": "Bad_Bucket!"}})
    await api.call("POST", "/integrations", admin, 422, json={"name": "x", "provider": "webhook",
                                                              "config": {"url": "not a url"}})

    # updates: omitted secrets are kept, names and events change, secrets never come back
    body = await api.call("PUT", f"/integrations/{s3['integration_id']}", admin, 200,
                          json={"name": "renamed", "config": {"bucket": "other-bucket"}})
    assert body["name"] == "renamed" and body["config"]["bucket"] == "other-bucket"
    assert body["config"]["access_key_id"] == S3["access_key_id"] and body["signing_secret"] is None
    body = await api.call("PUT", f"/integrations/{hook['integration_id']}", admin, 200,
                          json={"events": ["dataset.failed"]})
    assert body["events"] == ["dataset.failed"] and body["signing_secret"] is None
    await api.call("PUT", f"/integrations/{hook['integration_id']}", admin, 422, json={})
    await api.call("PUT", f"/integrations/{hook['integration_id']}", admin, 422, json={"provider": "s3"})
    await api.call("PUT", f"/integrations/{s3['integration_id']}", admin, 422, json={"rotate_secret": True})
    await api.call("PUT", "/integrations/999999", admin, 404, json={"name": "x"})

    # tenant isolation: another tenant's Admin sees 404, never the row
    _, other = await api.create_tenant()
    assert await api.call("GET", "/integrations", other, 200) == []
    for method, path in (("PUT", ""), ("DELETE", ""), ("POST", "/test"), ("GET", "/deliveries")):
        kwargs = {"json": {"name": "x"}} if method == "PUT" else {}
        await api.call(method, f"/integrations/{hook['integration_id']}{path}", other, 404, **kwargs)
    await api.call("POST", f"/integrations/{hook['integration_id']}/deliveries/1/redeliver", other, 404)
    await api.call("POST", f"/integrations/{hook['integration_id']}/deliveries/999999/redeliver", admin, 404)

    # GraphQL shares it all
    data = await api.gql_data("query { integrations { total items { integration_id name config } } }", actor=manager)
    assert data["integrations"]["total"] == 2

    await api.call("DELETE", f"/integrations/{hook['integration_id']}", admin, 200)
    await api.call("GET", f"/integrations/{hook['integration_id']}/deliveries", admin, 404)
    await api.call("DELETE", f"/integrations/{hook['integration_id']}", admin, 404)
    rows = await api.call("GET", "/audit/logs", admin, 200, params={"action": "integration"})
    assert {r["action"] for r in rows} >= {"integration.create", "integration.update", "integration.delete"}
    assert S3["secret_access_key"] not in str(rows)
