"""The facade's strictness at the door (issue 16): a query parameter given empty or more than once,
a path id that is not an integer and a whole-number float where the body wants an integer are
refused with a 422 and a sentence, never read as absent or as their last value; a method a path does
not serve is a 405 whose `Allow` header lists every method of that path (RFC 9110 §15.5.6)."""

from __future__ import annotations

from collections import defaultdict

import httpx

from app.rest.routes import ROUTES
from tests.api.test_errors import assert_error
from tests.api_client import BASE, Api

# the methods a client may try on any path (CONNECT needs an authority-form target)
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE")


def _concrete(path: str, value: str = "1") -> str:
    for segment in path.split("/"):
        if segment.startswith("{"):
            path = path.replace(segment, value)
    return path


def _methods_by_path() -> dict[str, set[str]]:
    methods: dict[str, set[str]] = defaultdict(set)
    for route in ROUTES:
        methods[route.path].add(route.method)
    return methods


async def test_empty_or_repeated_query_parameters_are_refused(api: Api) -> None:
    _, admin = await api.create_tenant()
    for params in ("offset=", "limit=", "q=", "offset=abc&offset=", "offset=&offset=abc", "offset=1&offset=2",
                   "limit=5&limit=5"):
        body = assert_error(await api.request("GET", f"/projects?{params}", admin), 422)
        name = params.split("=")[0]
        assert f"'{name}'" in body["detail"], body
    assert "empty" in assert_error(await api.request("GET", "/projects?offset=", admin), 422)["detail"]
    assert "once" in assert_error(await api.request("GET", "/projects?limit=1&limit=2", admin), 422)["detail"]
    for params in ("start_date=", "end_date=", "actor_id=", "action=", "start_date=2026-01-01&start_date=2026-01-02"):
        assert_error(await api.request("GET", f"/audit/logs?{params}", admin), 422, contains="'")
    # every query parameter of every row, on the rows an Admin may read
    for route in ROUTES:
        if route.method != "GET" or not route.query or route.download:
            continue
        for param in route.query:
            # parameters are read before any service runs, so no other refusal comes first
            r = await api.request("GET", f"{_concrete(route.path)}?{param.name}=", admin)
            assert_error(r, 422, contains=param.name)
    # a well-formed single value is still fine, and unknown parameters are still ignored
    assert (await api.request("GET", "/projects?limit=5&offset=0&unknown=", admin)).status_code == 200


async def test_bounded_query_parameters(api: Api) -> None:
    _, admin = await api.create_tenant()
    for params in ({"limit": 0}, {"limit": 501}, {"offset": -1}, {"project_id": 0}, {"schema_id": -5}):
        path = "/schemas" if "schema_id" not in params else "/constraints"
        assert_error(await api.request("GET", path, admin, params=params), 422, contains=next(iter(params)))
    for params in ({"limit": 1}, {"limit": 500}, {"offset": 0}, {"offset": 2**31 - 1}):
        assert (await api.request("GET", "/projects", admin, params=params)).status_code == 200, params
    # a boolean is `true` or `false`, nothing else
    for value in ("1", "0", "yes", "True", "FALSE"):
        assert_error(await api.request("GET", "/notifications", admin, params={"unread_only": value}), 422,
                     contains="unread_only")
    for value in ("true", "false"):
        assert (await api.request("GET", "/notifications", admin, params={"unread_only": value})).status_code == 200


async def test_path_ids_that_are_not_integers_are_a_422(api: Api) -> None:
    _, admin = await api.create_tenant()
    pid = (await api.create_project(admin, "Strict"))["project_id"]
    for value in ("abc", "1.0", f"{pid}.0", "1e3", "+1", "0x10", "\u0661", "%20"):
        body = assert_error(await api.request("GET", f"/projects/{value}", admin), 422, contains="project_id")
        assert "integer" in body["detail"], body
    for value in ("0", "-1", str(2**31), str(10**30)):
        assert_error(await api.request("GET", f"/projects/{value}", admin), 404)
    assert_error(await api.request("DELETE", "/integrations/x1/deliveries/2/redeliver", admin), 405)
    assert_error(await api.request("POST", "/integrations/1/deliveries/x/redeliver", admin), 422,
                 contains="delivery_id")
    # authentication still comes first
    assert_error(await api.client.get(BASE + "/projects/abc"), 401)
    # a literal path wins over a template at the same place: /users/create is not user "create"
    assert_error(await api.request("GET", "/users/create", admin), 405)
    assert_error(await api.request("PATCH", "/users/me", admin, json={}), 405)
    assert (await api.request("GET", f"/projects/{pid}", admin)).status_code == 200


async def test_whole_number_floats_in_a_body_are_integers(api: Api) -> None:
    """JSON Schema's `integer` is any number with a zero fractional part, so the document allows
    5.0 where it says integer: a JSON body's whole-number float is taken as that integer, one with a
    fractional part is refused with a sentence. A query or path parameter is text, and "5.0" does
    not spell an integer: 422."""
    _, admin = await api.create_tenant()
    pid = (await api.create_project(admin, "Floats"))["project_id"]
    user = await api.create_user(admin, "Tester")
    sid = (await api.call("POST", "/schemas", admin, 201, json={"content": '{"type": "object"}'}))["schema_id"]
    added = await api.call("POST", f"/projects/{pid}/add-user", admin, 200,
                           json={"user_id": float(user.id), "role": "view"})
    assert user.id in [m["user_id"] for m in added["members"]]
    tenant = await api.call("PUT", f"/tenants/{admin.tenant_id}", api.root, 200, json={"retention_days": 30.0})
    assert tenant["retention_days"] == 30 and isinstance(tenant["retention_days"], int)
    preview = await api.call("POST", f"/schemas/{sid}/preview", admin, 200, json={"count": 3.0})
    assert preview["count"] == 3
    dataset = await api.call("POST", "/datasets/create", admin, 201, json={
        "name": "d", "project_id": float(pid), "schema_id": float(sid), "record_count": 5.0,
        "params": {"deferred": True}})
    assert dataset["record_count"] == 5
    cases = [
        ("POST", f"/projects/{pid}/add-user", {"user_id": user.id + 0.5}, "user_id"),
        ("POST", "/projects/create", {"name": "p", "tenant_id": 168589.25}, "tenant_id"),
        ("POST", "/datasets/create", {"name": "d", "project_id": pid, "schema_id": sid, "record_count": 5.5},
         "record_count"),
        ("PUT", f"/tenants/{admin.tenant_id}", {"retention_days": 30.1}, "retention_days"),
        ("POST", f"/schemas/{sid}/preview", {"count": 2.5}, "count"),
    ]
    for method, path, body, field in cases:
        detail = assert_error(await api.request(method, path, admin, json=body), 422, contains=field)["detail"]
        assert "whole number" in detail, detail
    for params in ({"project_id": "168589.0"}, {"limit": "5.0"}):
        assert_error(await api.request("GET", "/datasets", admin, params=params), 422, contains="integer")
    # and in the path (it was a bare 404 "No such path." before)
    assert_error(await api.request("GET", f"/projects/{pid}.0", admin), 422, contains="project_id")
    r = await api.request("POST", f"/projects/{pid}.0/add-user", admin, json={"user_id": user.id})
    assert_error(r, 422, contains="project_id")


def _allow(r: httpx.Response) -> list[str]:
    return [m.strip() for m in r.headers.get("allow", "").split(",") if m.strip()]


async def test_405_allow_lists_every_method_of_the_path(api: Api) -> None:
    _, admin = await api.create_tenant()
    r = await api.request("OPTIONS", "/datasets/1", admin)
    assert_error(r, 405, contains="OPTIONS")
    assert _allow(r) == ["DELETE", "GET"], r.headers
    for path, served in _methods_by_path().items():
        for method in METHODS:
            if method in served:
                continue
            r = await api.request(method, _concrete(path), admin)
            assert r.status_code == 405, (method, path, r.status_code, r.text)
            assert _allow(r) == sorted(served), (method, path, r.headers.get("allow"))
            if method != "HEAD":
                assert_error(r, 405, contains=method)
    # an unregistered method name, and without a token: the path's methods, not the caller, decide
    r = await api.client.request("FROB", BASE + "/projects/1")
    assert r.status_code == 405 and _allow(r) == ["DELETE", "GET", "PUT"], (r.status_code, r.headers)



async def test_upload_form_fields_follow_the_same_rules(api: Api) -> None:
    """The multipart upload door's text fields: given once with a value, or left out."""
    _, admin = await api.create_tenant()
    pid = (await api.create_project(admin, "Uploads"))["project_id"]
    schema = b'{"type": "object", "properties": {"n": {"type": "integer"}}}'
    file = {"file": ("s.json", schema)}
    for fields, name in (({"name": ""}, "name"), ({"project_id": ""}, "project_id"),
                         ({"project_id": "abc"}, "project_id"), ({"project_id": "0"}, "project_id"),
                         ({"name": ["a", "b"]}, "name")):
        r = await api.request("POST", "/schemas", admin, files=file, data=fields)
        assert_error(r, 422, contains=f"'{name}'")
    r = await api.request("POST", "/schemas", admin, files=file, data={"name": "ok", "project_id": str(pid)})
    assert r.status_code == 201, r.text
    assert r.json()["name"] == "ok" and r.json()["project_ids"] == [pid]
