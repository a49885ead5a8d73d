"""The audit log over HTTP: every state-changing action and every login leaves a row, secrets
never do, rows are scoped to the reader's tenant, and the log cannot be changed through the API."""

from __future__ import annotations

import json
from typing import Any

from tests.api_client import USER_PASSWORD, Actor, Api, unique


async def _rows(api: Api, actor: Actor, **params: Any) -> list[dict[str, Any]]:
    r = await api.request("GET", "/audit/logs", actor, params=params)
    assert r.status_code == 200, r.text
    return r.json()


async def test_every_change_is_recorded(api: Api) -> None:
    tenant_id, admin = await api.create_tenant()
    manager = await api.create_user(admin, "Manager")
    tester = await api.create_user(admin, "Tester")
    before = {r["id"] for r in await _rows(api, admin, limit=500)}

    pid = (await api.create_project(manager, "Audited"))["project_id"]
    await api.add_member(manager, pid, tester.id, "view")
    await api.add_member(manager, pid, tester.id, "edit")
    await api.call("PUT", f"/projects/{pid}", manager, 200, json={"name": "Audited 2", "tags": ["t"]})
    await api.call("POST", f"/projects/{pid}/remove-user", manager, 200, json={"user_id": tester.id})
    await api.call("PATCH", f"/users/{tester.id}", admin, 200, json={"role": "Manager"})
    token = await api.call("POST", "/settings/tokens", tester, 201, json={"name": "ci"})
    await api.call("DELETE", f"/settings/tokens/{token['token_id']}", tester, 200)
    invited = await api.call("POST", "/users/invite", manager, 201, json={
        "username": unique("inv"), "email": "inv@example.com"})
    await api.call("POST", "/users/setup-password", None, 200,
                   json={"token": invited["invitation_token"], "password": "secret-password-9"})
    await api.call("GET", "/users/logout", tester, 200)
    await api.call("DELETE", f"/projects/{pid}", admin, 200)
    # refused actions change nothing and leave no row
    await api.call("DELETE", f"/projects/{pid}", admin, 404)
    await api.call("PATCH", f"/users/{admin.id}", admin, 403, json={"role": "Tester"})

    new = [r for r in await _rows(api, admin, limit=500) if r["id"] not in before]
    got = [(r["action"], r["actor_username"], r["target_type"], r["target_id"]) for r in reversed(new)]
    assert got == [
        ("project.create", manager.username, "project", str(pid)),
        ("project.member_add", manager.username, "user", str(tester.id)),
        ("project.member_update", manager.username, "user", str(tester.id)),
        ("project.update", manager.username, "project", str(pid)),
        ("project.member_remove", manager.username, "user", str(tester.id)),
        ("user.update", admin.username, "user", str(tester.id)),
        ("token.create", tester.username, "api_token", str(token["token_id"])),
        ("token.revoke", tester.username, "api_token", str(token["token_id"])),
        ("user.invite", manager.username, "user", str(invited["id"])),
        ("user.setup_password", invited["username"], "user", str(invited["id"])),
        ("auth.logout", tester.username, "user", str(tester.id)),
        ("project.delete", admin.username, "project", str(pid)),
    ]
    by_action = {r["action"]: r for r in new}
    assert by_action["user.update"]["details"] == {"role": ["Tester", "Manager"]}
    assert by_action["user.update"]["role"] == "Admin"
    assert by_action["project.update"]["details"] == {"fields": ["name", "tags"]}
    assert by_action["project.delete"]["details"] == {"name": "Audited 2"}
    assert all(r["tenant_id"] == tenant_id and r["success"] for r in new)
    assert all(r["ip"] == "127.0.0.1" for r in new), {r["ip"] for r in new}
    # ids are unique and ascending with time
    assert [r["id"] for r in new] == sorted((r["id"] for r in new), reverse=True)
    # no secret ever reaches the log
    everything = json.dumps(await _rows(api, admin, limit=500))
    for secret in (USER_PASSWORD, "secret-password-9", token["token"], invited["invitation_token"], admin.token):
        assert secret not in everything


async def test_failed_logins_are_recorded(api: Api) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    for password in ("wrong-one-1", "wrong-two-2"):
        r = await api.client.post("/api/v1/users/token", data={"username": tester.username, "password": password})
        assert r.status_code == 401
    failed = [r for r in await _rows(api, admin, action="auth.login") if not r["success"]]
    assert [(r["actor_username"], r["actor_id"], r["target_id"], r["ip"]) for r in failed] == [
        (tester.username, None, str(tester.id), "127.0.0.1")] * 2
    assert "wrong-one-1" not in json.dumps(failed)
    # unknown usernames are recorded without a tenant: only the SuperUser sees them
    await api.client.post("/api/v1/users/token", data={"username": "ghost_user", "password": "whatever-1"})
    assert api.root is not None
    ghosts = await _rows(api, api.root, action="auth.login")
    assert any(r["actor_username"] == "ghost_user" and r["tenant_id"] is None and not r["success"] for r in ghosts)
    assert not any(r["actor_username"] == "ghost_user" for r in await _rows(api, admin, limit=500))


async def test_scoping_and_immutability(api: Api) -> None:
    root = api.root
    assert root is not None
    tenant_a, admin_a = await api.create_tenant()
    tenant_b, admin_b = await api.create_tenant()
    await api.create_project(admin_a, "A")
    await api.create_project(admin_b, "B")

    rows_a = await _rows(api, admin_a, limit=500)
    assert rows_a and {r["tenant_id"] for r in rows_a} == {tenant_a}
    assert await _rows(api, admin_a, tenant_id=tenant_b) == []
    assert {r["tenant_id"] for r in await _rows(api, root, tenant_id=tenant_b)} == {tenant_b}
    all_tenants = {r["tenant_id"] for r in await _rows(api, root, limit=500)}
    assert {tenant_a, tenant_b, root.tenant_id} <= all_tenants

    newest = rows_a[0]["id"]
    for method in ("POST", "PUT", "PATCH", "DELETE"):
        r = await api.request(method, "/audit/logs", root, json={})
        assert r.status_code == 405, (method, r.text)
        r = await api.request(method, f"/audit/logs/{newest}", root, json={})
        assert r.status_code in (404, 405), (method, r.text)
    mutations = [f["name"] for f in (await api.gql_data("{ __schema { mutationType { fields { name } } } }"))
                 ["__schema"]["mutationType"]["fields"]]
    assert not [m for m in mutations if "audit" in m], mutations
    assert (await _rows(api, admin_a, limit=500))[0]["id"] == newest

    for params in ({"limit": 0}, {"limit": 501}, {"actor_id": "x"}, {"project_id": "1.5"},
                   {"end_date": "2026-13-45"}):
        await api.call("GET", "/audit/logs", admin_a, 422, params=params)
