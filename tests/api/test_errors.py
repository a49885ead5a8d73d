"""Error answers over HTTP (DESIGN §11): always JSON `{"detail": "<sentence>", ...}`, 400 for
malformed bodies, 415 for the wrong media type, 422 for present but invalid values, 404/405 for
unknown paths and methods, and never a 500 for anything a client can send."""

from __future__ import annotations

from typing import Any

import httpx

from tests.api_client import BASE, Actor, Api


def assert_error(r: httpx.Response, status: int, *, contains: str = "") -> dict[str, Any]:
    assert r.status_code == status, (r.request.method, str(r.request.url), r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json"), r.headers
    body = r.json()
    assert isinstance(body, dict) and isinstance(body.get("detail"), str) and body["detail"].strip(), body
    assert "Traceback" not in r.text and "sqlalchemy" not in r.text.lower()
    assert contains in body["detail"], body
    return body


async def _setup(api: Api) -> tuple[Actor, int]:
    _, admin = await api.create_tenant()
    pid = (await api.create_project(admin, "Errors"))["project_id"]
    return admin, pid


async def test_malformed_bodies(api: Api) -> None:
    admin, pid = await _setup(api)
    json_ct = {"Content-Type": "application/json"}
    path = f"/projects/{pid}"
    for raw in (b"{", b'{"name": }', b"{'name': 'x'}", b'{"name": "x",}', b"\xff\xfe{}", b"NaN",
                b'{"name": "x"} trailing', b"[" * 5000 + b"]" * 5000, b'{"a": 1e999999}'):
        assert_error(await api.request("PUT", path, admin, content=raw, headers=json_ct), 400)
    for raw in (b"[]", b'[{"name": "x"}]', b'"name"', b"5", b"null", b"true"):
        assert_error(await api.request("PUT", path, admin, content=raw, headers=json_ct), 400,
                     contains="JSON object")
    assert_error(await api.request("PUT", path, admin, content=b"", headers=json_ct), 400)
    assert_error(await api.request("PUT", path, admin, content=b"   ", headers=json_ct), 400)
    # a 64-bit overflow is refused cleanly, whatever the parser's view of it
    r = await api.request("POST", f"/projects/{pid}/add-user", admin, content=b'{"user_id": 100000000000000000000000}',
                          headers=json_ct)
    assert_error(r, r.status_code)
    assert r.status_code in (400, 422)

    # JSON media types with parameters or a +json suffix are fine
    for ctype in ("application/json; charset=utf-8", "application/vnd.tdg+json", "APPLICATION/JSON"):
        r = await api.request("PUT", path, admin, content=b'{"description": "ok"}', headers={"Content-Type": ctype})
        assert r.status_code == 200, (ctype, r.text)
    for ctype in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                  "application/xml", ""):
        headers = {"Content-Type": ctype} if ctype else {}
        r = await api.request("PUT", path, admin, content=b'{"description": "no"}', headers=headers)
        assert_error(r, 415, contains="application/json")
    assert (await api.call("GET", path, admin, 200))["description"] == "ok"

    # authentication is checked before the body is read
    r = await api.client.put(BASE + path, content=b"{", headers=json_ct)
    assert_error(r, 401)


async def test_strict_values(api: Api) -> None:
    root = api.root
    assert root is not None
    admin, pid = await _setup(api)
    member = (await api.create_user(admin, "Tester")).id
    add = f"/projects/{pid}/add-user"
    # (a whole-number float such as float(member) is that integer: test_rest_strictness)
    for value in (str(member), True, 1e12, member + 0.5, [member], {"id": member}, None):
        body = assert_error(await api.request("POST", add, admin, json={"user_id": value}), 422)
        assert "user_id" in body["detail"], body
        assert body["errors"][0]["field"] == "user_id"
    for value in ("5", True, 1e12, 5.5):
        assert_error(await api.request("PUT", f"/tenants/{admin.tenant_id}", root,
                                       json={"max_concurrent_generations": value}), 422)
    for value in (1, "yes", "true", None):
        body = {"is_active": value} if value is not None else {"is_active": value, "role": 5}
        assert_error(await api.request("PATCH", f"/users/{member}", admin, json=body), 422)
    body = assert_error(await api.request("PUT", f"/projects/{pid}", admin, json={"nmae": "typo"}), 422)
    assert "nmae" in body["detail"]
    for params in ({"limit": "5.0"}, {"limit": "1e1"}, {"limit": "true"}, {"offset": "x"}, {"limit": "\uff19"}):
        assert_error(await api.request("GET", "/projects", admin, params=params), 422, contains="limit"
                     if "limit" in params else "offset")
    assert (await api.call("GET", f"/projects/{pid}", admin, 200))["members"] == []
    # integers beyond GraphQL's 32-bit Int are refused at the door, not inside the engine
    for name, path in (("offset", "/projects"), ("limit", "/projects"), ("tenant_id", "/projects"),
                       ("actor_id", "/audit/logs"), ("project_id", "/audit/logs"), ("offset", "/users")):
        for value in (2**31, 2**63, -(2**31) - 1, 10**30):
            assert_error(await api.request("GET", path, admin, params={name: value}), 422, contains=name)


async def test_nul_characters_are_refused_on_both_databases(api: Api) -> None:
    """PostgreSQL text cannot hold U+0000: it must be a 422 at the door, never a 500 or a driver message."""
    admin, pid = await _setup(api)
    cases = [
        ("POST", "/projects/create", {"json": {"name": "a\u0000b"}}),
        ("PUT", f"/projects/{pid}", {"json": {"description": "x\u0000"}}),
        ("PUT", f"/projects/{pid}", {"json": {"tags": ["ok", "t\u0000"]}}),
        ("PATCH", f"/users/{admin.id}", {"json": {"display_name": "\u0000"}}),
        ("GET", "/users", {"params": {"q": "a\u0000b"}}),
        ("GET", "/projects", {"params": {"q": "\u0000"}}),
        ("GET", "/audit/logs", {"params": {"action": "auth\u0000"}}),
    ]
    for method, path, kwargs in cases:
        body = assert_error(await api.request(method, path, admin, **kwargs), 422, contains="NUL")
        assert "SQL" not in body["detail"] and "psycopg" not in body["detail"]
    r = await api.client.post(BASE + "/users/token", data={"username": "a\u0000b", "password": "x"})
    assert_error(r, 422, contains="NUL")
    assert (await api.call("GET", f"/projects/{pid}", admin, 200))["description"] == "test"


def test_unshaped_engine_errors_are_masked() -> None:
    """An error the GraphQL error extension did not shape (e.g. a failed commit) carries raw driver
    text: the facade answers a plain 500 and never echoes it."""
    from graphql import GraphQLError

    from app.rest.facade import _error_from_graphql

    leaked = GraphQLError("(psycopg.DataError) boom [SQL: UPDATE user_account SET display_name=...]")
    r = _error_from_graphql(leaked)
    assert r.status_code == 500 and b"SQL" not in r.body and b"psycopg" not in r.body
    shaped = GraphQLError("Project 5 was not found.", extensions={"code": "not_found", "status": 404})
    r = _error_from_graphql(shaped)
    assert r.status_code == 404 and b"Project 5 was not found." in r.body


async def test_unexpected_exceptions_become_a_bare_500() -> None:
    """The last-resort handler: JSON, a generic sentence, no traceback or exception text."""
    from fastapi import FastAPI

    from app.rest import errors

    app = FastAPI()
    errors.install(app)

    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("secret internals: /etc/tdg.conf SELECT * FROM user_account")

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        r = await client.get("/boom")
    body = assert_error(r, 500)
    assert body == {"detail": "Internal server error.", "code": "internal"}
    assert "secret" not in r.text and "SELECT" not in r.text


async def test_unknown_paths_and_methods(api: Api) -> None:
    admin, pid = await _setup(api)
    for path in (BASE + "/nope", BASE + "/projects/1/nope", BASE + "/users/me/extra", BASE,
                 BASE + "/", "/api/v2/users/me", BASE + "/projects//add-user"):
        for method in ("GET", "POST"):
            assert_error(await api.client.request(method, path, headers=admin.headers), 404)
    # a GET outside the API's prefixes loads the web interface (history routing); other methods do not
    assert_error(await api.client.post("/nope", headers=admin.headers), 404)
    for method, path in (("DELETE", "/users/me"), ("PATCH", "/projects/create"), ("PUT", "/users/token"),
                         ("GET", "/users/create"), ("PATCH", f"/projects/{pid}"), ("POST", "/audit/logs"),
                         ("DELETE", "/tenants"), ("GET", "/users/setup-password")):
        assert_error(await api.request(method, path, admin, json={}), 405)
    assert_error(await api.client.get(BASE + "/users/me"), 401)


async def test_graphql_errors_are_shaped(api: Api) -> None:
    admin, pid = await _setup(api)
    body = await api.graphql("query($id: Int!) { project(project_id: $id) { name } }", {"id": 999999}, admin)
    assert body["data"] is None
    error = body["errors"][0]
    assert error["extensions"] == {"code": "project_not_found", "status": 404, "classification": "NOT_FOUND"}
    assert error["message"] == "Project 999999 was not found."
    r = await api.graphql_raw("{ project(project_id: 1) { nosuchfield } }", actor=admin)
    assert r.status_code in (200, 400)
    assert r.json()["errors"][0]["extensions"]["code"] == "graphql_validation"
    assert r.json()["errors"][0]["extensions"]["classification"] == "ValidationError"
    r = await api.graphql_raw("{ project(project_id: ", actor=admin)
    assert r.status_code in (200, 400) and r.json()["errors"][0]["message"].startswith("Syntax Error")
    r = await api.client.post("/graphql", content=b"{", headers={"Content-Type": "application/json", **admin.headers})
    assert r.status_code == 400
    body = await api.graphql("mutation($p: Int!, $i: ProjectUpdateInput!) { update_project(project_id: $p, input: $i)"
                             " { name } }", {"p": pid, "i": {"name": ""}}, admin)
    assert body["errors"][0]["extensions"]["status"] == 422
    assert body["errors"][0]["extensions"]["classification"] == "BAD_REQUEST"


async def test_graphql_refuses_nul_without_leaking(api: Api) -> None:
    admin, _ = await _setup(api)
    body = await api.graphql("mutation($id: Int!, $i: UserUpdateInput!) { update_user(user_id: $id, input: $i) { id } }",
                             {"id": admin.id, "i": {"display_name": "a\u0000"}}, admin)
    assert body.get("errors"), body
    assert "SQL" not in body["errors"][0]["message"]
    assert body["errors"][0]["extensions"]["status"] == 422


async def test_graphql_variable_out_of_range_is_a_client_error(api: Api) -> None:
    admin, _ = await _setup(api)
    body = await api.graphql("query($o: Int!) { projects(limit: 5, offset: $o) { total } }", {"o": 2**31}, admin)
    assert body["errors"][0]["extensions"]["status"] == 400, body

