"""The walk a new customer takes, over HTTP with real tokens: tenant, users, a shared project,
the same data over REST and GraphQL, tenant isolation, privilege limits, and the audit trail."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from app.rest.operations import op
from tests.api_client import TENANT_ADMIN_PASSWORD, Actor, Api


async def test_new_customer_walkthrough(api: Api) -> None:
    root = api.root
    assert root is not None

    # SuperUser creates a tenant with its first Admin
    tenant = await api.call("POST", "/tenants", root, 201, json={
        "name": "Acme", "admin_username": "acme_admin", "admin_email": "admin@acme.example",
        "admin_password": TENANT_ADMIN_PASSWORD})
    assert tenant["name"] == "Acme" and tenant["admin_username"] == "acme_admin" and tenant["is_active"] is True
    admin = await api.login("acme_admin", TENANT_ADMIN_PASSWORD)
    assert admin.tenant_id == tenant["tenant_id"] and admin.id == tenant["admin_user_id"]

    # Admin creates a Manager and a Tester
    manager = await api.create_user(admin, "Manager", "acme_manager")
    tester = await api.create_user(admin, "Tester", "acme_tester")
    assert {manager.tenant_id, tester.tenant_id} == {tenant["tenant_id"]}

    # Manager creates a project and adds the Tester with role `edit`
    project = await api.call("POST", "/projects/create", manager, 201,
                             json={"name": "Payments", "description": "Card flows", "tags": ["pci", "eu"]})
    pid = project["project_id"]
    assert project["name"] == "Payments" and project["description"] == "Card flows"
    assert project["created_by"] == manager.id and project["tenant_id"] == tenant["tenant_id"]
    detail = await api.add_member(manager, pid, tester.id, "edit")
    assert [(m["user_id"], m["role"], m["user"]["username"]) for m in detail["members"]] == [
        (tester.id, "edit", "acme_tester")]

    # the Tester sees it over REST ...
    r = await api.request("GET", "/projects", tester)
    assert r.status_code == 200 and r.headers["X-Total-Count"] == "1"
    listed = r.json()
    assert [p["project_id"] for p in listed] == [pid]
    rest_detail = await api.call("GET", f"/projects/{pid}", tester, 200)
    assert rest_detail["my_role"] == "edit" and rest_detail["tags"] == ["pci", "eu"]
    assert rest_detail["members"][0]["user"] == {
        "id": tester.id, "username": "acme_tester", "display_name": None,
        "email": "acme_tester@example.com", "role": "Tester"}
    # ... and over GraphQL, with identical data
    gql_list = await api.gql_data(op("Projects").document, {"limit": 50, "offset": 0}, tester)
    assert gql_list["projects"] == {"total": 1, "items": listed}
    gql_detail = await api.gql_data(op("Project").document, {"project_id": pid}, tester)
    assert gql_detail["project"] == rest_detail
    me = await api.call("GET", "/users/me", tester, 200)
    assert [p["project_id"] for p in me["projects"]] == [pid]

    # another tenant's Admin cannot see it at all: 404 everywhere, never 403
    _, other_admin = await api.create_tenant("Globex")
    for method, path, body in (
        ("GET", f"/projects/{pid}", None),
        ("PUT", f"/projects/{pid}", {"name": "stolen"}),
        ("DELETE", f"/projects/{pid}", None),
        ("POST", f"/projects/{pid}/add-user", {"user_id": other_admin.id, "role": "owner"}),
    ):
        await api.call(method, path, other_admin, 404, json=body)
    assert (await api.request("GET", "/projects", other_admin)).json() == []

    # the Tester may not delete it; a Tester may not raise their own role; an Admin may not mint a SuperUser
    err = await api.call("DELETE", f"/projects/{pid}", tester, 403)
    assert "Tester" in err["detail"]
    await api.call("PATCH", f"/users/{tester.id}", tester, 403, json={"role": "Admin"})
    await api.call("POST", "/users/create", admin, 403, json={
        "username": "acme_root", "password": "whatever-123", "role": "SuperUser"})
    assert (await api.call("GET", f"/users/{tester.id}", admin, 200))["role"] == "Tester"
    await api.call("GET", f"/projects/{pid}", tester, 200)  # still there

    # the audit trail, read by the Admin: only this tenant's rows, newest first
    chronological = [
        ("tenant.create", "root", "SuperUser", None),
        ("auth.login", "acme_admin", "Admin", None),
        ("user.create", "acme_admin", "Admin", None),
        ("auth.login", "acme_manager", "Manager", None),
        ("user.create", "acme_admin", "Admin", None),
        ("auth.login", "acme_tester", "Tester", None),
        ("project.create", "acme_manager", "Manager", pid),
        ("project.member_add", "acme_manager", "Manager", pid),
    ]
    rows = await audit(api, admin, {}, total=len(chronological))
    assert [(r["action"], r["actor_username"], r["role"], r["project_id"]) for r in rows] == chronological[::-1]
    assert all(r["tenant_id"] == tenant["tenant_id"] and r["success"] for r in rows)
    by_action = {r["action"]: r for r in rows}
    assert by_action["project.member_add"]["target_id"] == str(tester.id)
    assert by_action["project.member_add"]["details"] == {"role": "edit"}
    assert by_action["tenant.create"]["actor_id"] == root.id

    # filters, each checked against concrete rows and the total
    assert [r["action"] for r in await audit(api, admin, {"actor_id": manager.id}, total=3)] == [
        "project.member_add", "project.create", "auth.login"]
    assert [r["action"] for r in await audit(api, admin, {"action": "project"}, total=2)] == [
        "project.member_add", "project.create"]
    assert [r["project_id"] for r in await audit(api, admin, {"action": "project.create"}, total=1)] == [pid]
    assert [r["actor_username"] for r in await audit(api, admin, {"action": "user.create"}, total=2)] == [
        "acme_admin", "acme_admin"]
    assert [r["action"] for r in await audit(api, admin, {"role": "SuperUser"}, total=1)] == ["tenant.create"]
    assert len(await audit(api, admin, {"role": "Manager"}, total=3)) == 3
    assert [r["action"] for r in await audit(api, admin, {"project_id": pid}, total=2)] == [
        "project.member_add", "project.create"]
    await audit(api, admin, {"project_id": pid, "actor_id": admin.id}, total=0)
    paged = await audit(api, admin, {"limit": 2, "offset": 1}, total=len(chronological))
    assert [r["action"] for r in paged] == ["project.create", "auth.login"]

    created_at = by_action["project.create"]["at"]
    tester_login_at = next(r["at"] for r in rows if r["actor_username"] == "acme_tester")
    assert [r["action"] for r in await audit(api, admin, {"start_date": created_at}, total=2)] == [
        "project.member_add", "project.create"]
    assert next(r["action"] for r in await audit(api, admin, {"end_date": tester_login_at}, total=6)) == "auth.login"
    await audit(api, admin, {"start_date": created_at, "end_date": tester_login_at}, total=0)
    # the same instant written with another UTC offset selects the same rows
    instant = datetime.fromisoformat(created_at.replace("Z", "+00:00"))
    shifted = instant.astimezone(UTC).astimezone(timezone_plus_two()).isoformat()
    assert [r["action"] for r in await audit(api, admin, {"start_date": shifted}, total=2)] == [
        "project.member_add", "project.create"]
    today = instant.date()
    await audit(api, admin, {"start_date": today.isoformat(), "end_date": today.isoformat()}, total=8)
    await audit(api, admin, {"start_date": (today + timedelta(days=1)).isoformat()}, total=0)
    await audit(api, admin, {"end_date": (today - timedelta(days=1)).isoformat()}, total=0)
    await api.call("GET", "/audit/logs", admin, 422, params={"start_date": "yesterday"})

    # only Admins (and the SuperUser) read audit logs
    for actor in (tester, manager):
        await api.call("GET", "/audit/logs", actor, 403)
    everything = await audit(api, root, {"action": "tenant.create"}, total=2)
    assert {r["details"]["name"] for r in everything} == {"Acme", "Globex"}


def timezone_plus_two() -> timezone:
    return timezone(timedelta(hours=2))


async def audit(api: Api, actor: Actor, params: dict[str, object], *, total: int) -> list[dict[str, Any]]:
    r = await api.request("GET", "/audit/logs", actor, params=params)
    assert r.status_code == 200, r.text
    assert r.headers["X-Total-Count"] == str(total), (params, r.headers["X-Total-Count"], r.json())
    rows: list[dict[str, Any]] = r.json()
    if "limit" not in params:
        assert len(rows) == total
    return rows
