"""Projects over HTTP: creation, visibility per role, members, updates, deletion, tenant isolation,
and identifiers or pages that must give 404/422, never 500."""

from __future__ import annotations

import re
from typing import Any

from tests.api_client import Actor, Api

ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


async def _ids(api: Api, actor: Actor, **params: Any) -> list[int]:
    r = await api.request("GET", "/projects", actor, params=params)
    assert r.status_code == 200, r.text
    rows = r.json()
    if "limit" not in params and "offset" not in params:
        assert r.headers["X-Total-Count"] == str(len(rows))
    return [p["project_id"] for p in rows]


async def test_create_and_fields(api: Api) -> None:
    root = api.root
    assert root is not None
    tenant_id, admin = await api.create_tenant()
    other_tenant, _ = await api.create_tenant()
    manager = await api.create_user(admin, "Manager")
    tester = await api.create_user(admin, "Tester")

    created = await api.call("POST", "/projects/create", manager, 201, json={"name": "  Checkout  ",
                                                                              "description": "Cart and pay"})
    assert created["name"] == "Checkout" and created["description"] == "Cart and pay" and created["tags"] == []
    assert isinstance(created["project_id"], int) and ISO_UTC.match(created["created_at"]), created
    assert created["tenant_id"] == tenant_id and created["created_by"] == manager.id
    minimal = await api.call("POST", "/projects/create", admin, 201, json={"name": "Bare"})
    assert minimal["description"] == "" and minimal["tags"] == []
    tagged = await api.call("POST", "/projects/create", admin, 201, json={"name": "T", "tags": ["a", "b", "a"]})
    assert tagged["tags"] == ["a", "b"]

    await api.call("POST", "/projects/create", tester, 403, json={"name": "Nope"})
    await api.call("POST", "/projects/create", admin, 403, json={"name": "Elsewhere", "tenant_id": other_tenant})
    there = await api.call("POST", "/projects/create", root, 201, json={"name": "Elsewhere", "tenant_id": other_tenant})
    assert there["tenant_id"] == other_tenant
    await api.call("POST", "/projects/create", root, 404, json={"name": "Nowhere", "tenant_id": 99999})

    await api.call("POST", "/projects/create", admin, 400, json={"description": "no name"})
    for body in ({"name": ""}, {"name": "   "}, {"name": "x" * 201}, {"name": 5}, {"name": "ok", "tags": "a"},
                 {"name": "ok", "tags": [""]}, {"name": "ok", "tags": [1]}, {"name": "ok", "owner": 1},
                 {"name": "ok", "project_id": 7}, {"name": "ok", "created_by": 1}, {"name": "ok", "tenant_id": "1"}):
        err = await api.call("POST", "/projects/create", admin, 422, json=body)
        assert err["errors"], err
    assert len(await _ids(api, admin)) == 3


async def test_visibility_per_role(api: Api) -> None:
    root = api.root
    assert root is not None
    _, admin = await api.create_tenant()
    _, other_admin = await api.create_tenant()
    m1 = await api.create_user(admin, "Manager")
    m2 = await api.create_user(admin, "Manager")
    tester = await api.create_user(admin, "Tester")
    p_m1 = (await api.create_project(m1, "m1's"))["project_id"]
    p_m2 = (await api.create_project(m2, "m2's"))["project_id"]
    p_admin = (await api.create_project(admin, "admin's"))["project_id"]
    p_shared = (await api.create_project(m2, "shared", tags=["blue"]))["project_id"]
    p_foreign = (await api.create_project(other_admin, "foreign"))["project_id"]
    await api.add_member(m2, p_shared, m1.id, "view")
    await api.add_member(m2, p_shared, tester.id, "view")
    await api.add_member(admin, p_admin, tester.id, "edit")

    assert await _ids(api, tester) == [p_admin, p_shared]
    assert await _ids(api, m1) == [p_m1, p_shared]
    assert await _ids(api, m2) == [p_m2, p_shared]
    assert await _ids(api, admin) == [p_m1, p_m2, p_admin, p_shared]
    assert await _ids(api, other_admin) == [p_foreign]
    assert await _ids(api, root) == [p_m1, p_m2, p_admin, p_shared, p_foreign]
    assert await _ids(api, root, tenant_id=other_admin.tenant_id) == [p_foreign]
    assert await _ids(api, admin, tenant_id=other_admin.tenant_id) == []

    # detail follows the same visibility, with the caller's effective role
    expected_roles = [(tester, p_shared, "view"), (tester, p_admin, "edit"), (m1, p_m1, "owner"),
                      (m1, p_shared, "view"), (admin, p_m2, "owner"), (root, p_foreign, "owner")]
    for actor, pid, role in expected_roles:
        assert (await api.call("GET", f"/projects/{pid}", actor, 200))["my_role"] == role
    for actor, pid in ((tester, p_m1), (tester, p_m2), (m1, p_m2), (m1, p_admin), (admin, p_foreign),
                       (other_admin, p_shared)):
        err = await api.call("GET", f"/projects/{pid}", actor, 404)
        assert err["detail"] == f"Project {pid} was not found."

    # /users/me lists what the caller can see
    me = await api.call("GET", "/users/me", tester, 200)
    assert [p["project_id"] for p in me["projects"]] == [p_admin, p_shared]

    # search, tag filter and paging
    assert await _ids(api, admin, q="SHAR") == [p_shared]
    assert await _ids(api, admin, q="%") == []
    assert await _ids(api, admin, tag="blue") == [p_shared]
    assert await _ids(api, tester, tag="blue") == [p_shared]
    r = await api.request("GET", "/projects", admin, params={"limit": 2, "offset": 1})
    assert [p["project_id"] for p in r.json()] == [p_m2, p_admin] and r.headers["X-Total-Count"] == "4"
    r = await api.request("GET", "/projects", admin, params={"limit": 1, "offset": 0, "tag": "blue"})
    assert len(r.json()) == 1 and r.headers["X-Total-Count"] == "1"
    for params in ({"limit": 0}, {"limit": 501}, {"offset": -1}, {"limit": "1e2"}, {"limit": "5.0"},
                   {"tenant_id": "x"}):
        await api.call("GET", "/projects", admin, 422, params=params)
    assert len(await _ids(api, admin, limit=500)) == 4


async def test_members_update_and_delete(api: Api) -> None:
    _, admin = await api.create_tenant()
    _, other_admin = await api.create_tenant()
    manager = await api.create_user(admin, "Manager")
    other_manager = await api.create_user(admin, "Manager")
    tester = await api.create_user(admin, "Tester")
    owner_tester = await api.create_user(admin, "Tester")
    foreigner = await api.create_user(other_admin, "Tester")
    pid = (await api.create_project(manager, "Members"))["project_id"]

    for user, role in ((tester, "view"), (owner_tester, "owner"), (other_manager, "edit")):
        await api.add_member(manager, pid, user.id, role)
    detail = await api.call("GET", f"/projects/{pid}", tester, 200)
    members = {m["user_id"]: m for m in detail["members"]}
    assert {uid: m["role"] for uid, m in members.items()} == {
        tester.id: "view", owner_tester.id: "owner", other_manager.id: "edit"}
    assert members[tester.id]["user"]["username"] == tester.username
    assert members[tester.id]["user"]["role"] == "Tester" and members[tester.id]["added_by"] == manager.id
    assert detail["schemas"] == [] and detail["datasets"] == []
    # changing a member's role
    changed = await api.add_member(manager, pid, tester.id, "edit")
    assert {m["user_id"]: m["role"] for m in changed["members"]}[tester.id] == "edit"
    assert len(changed["members"]) == 3

    for body, status in (({"user_id": tester.id, "role": "admin"}, 422), ({"user_id": tester.id, "role": ""}, 422),
                         ({"user_id": tester.id, "role": 1}, 422), ({"user_id": "5"}, 422),
                         ({"user_id": foreigner.id, "role": "view"}, 404), ({"user_id": 999999}, 404),
                         ({"role": "view"}, 400), ({"user_id": tester.id, "extra": 1}, 422)):
        await api.call("POST", f"/projects/{pid}/add-user", manager, status, json=body)
    # only owners with a Manager role or above manage members
    await api.call("POST", f"/projects/{pid}/add-user", owner_tester, 403, json={"user_id": tester.id})
    await api.call("POST", f"/projects/{pid}/add-user", other_manager, 403, json={"user_id": tester.id})
    await api.add_member(manager, pid, other_manager.id, "owner")
    await api.add_member(other_manager, pid, tester.id, "view")

    # updates: owners only (the owner Tester too), edit/view members get 403
    updated = await api.call("PUT", f"/projects/{pid}", owner_tester, 200,
                             json={"name": "Renamed", "description": "new", "tags": ["x", "y", "x"]})
    assert (updated["name"], updated["description"], updated["tags"]) == ("Renamed", "new", ["x", "y"])
    assert updated["updated_at"] >= updated["created_at"]
    partial = await api.call("PUT", f"/projects/{pid}", manager, 200, json={"tags": []})
    assert (partial["name"], partial["tags"]) == ("Renamed", [])
    await api.call("PUT", f"/projects/{pid}", tester, 403, json={"name": "Mine"})
    await api.call("PUT", f"/projects/{pid}", manager, 422, json={})
    await api.call("PUT", f"/projects/{pid}", manager, 422, json={"name": ""})
    await api.call("PUT", f"/projects/{pid}", manager, 422, json={"tenant_id": other_admin.tenant_id})
    assert (await api.call("GET", f"/projects/{pid}", tester, 200))["name"] == "Renamed"

    # removing members
    await api.call("POST", f"/projects/{pid}/remove-user", manager, 200, json={"user_id": tester.id})
    await api.call("GET", f"/projects/{pid}", tester, 404)
    await api.call("POST", f"/projects/{pid}/remove-user", manager, 404, json={"user_id": tester.id})
    await api.call("POST", f"/projects/{pid}/remove-user", tester, 404, json={"user_id": owner_tester.id})
    await api.call("POST", f"/projects/{pid}/remove-user", owner_tester, 403, json={"user_id": other_manager.id})
    await api.call("POST", f"/projects/{pid}/remove-user", manager, 400, json={})

    # deletion: Admin only, even for the creating Manager
    err = await api.call("DELETE", f"/projects/{pid}", manager, 403)
    assert "Manager" in err["detail"]
    await api.call("DELETE", f"/projects/{pid}", owner_tester, 403)
    assert await api.call("DELETE", f"/projects/{pid}", admin, 200) == {"deleted": True, "id": pid}
    for actor in (admin, manager, owner_tester):
        await api.call("GET", f"/projects/{pid}", actor, 404)
    await api.call("DELETE", f"/projects/{pid}", admin, 404)
    assert (await api.call("GET", "/users/me", owner_tester, 200))["projects"] == []


async def test_cross_tenant_and_odd_ids(api: Api) -> None:
    _, admin = await api.create_tenant()
    _, other_admin = await api.create_tenant()
    pid = (await api.create_project(admin, "Mine"))["project_id"]
    foreign_pid = (await api.create_project(other_admin, "Theirs"))["project_id"]
    mine_user = (await api.create_user(admin, "Tester")).id

    requests: list[tuple[str, str, dict[str, Any] | None]] = [
        ("GET", "", None), ("PUT", "", {"name": "x"}), ("DELETE", "", None),
        ("POST", "/add-user", {"user_id": mine_user, "role": "view"}),
        ("POST", "/remove-user", {"user_id": other_admin.id}),
    ]
    for method, suffix, body in requests:
        await api.call(method, f"/projects/{foreign_pid}{suffix}", admin, 404, json=body)
        # an integer that cannot name a row is not found; a segment that is no integer is invalid
        for odd, status in (("0", 404), (str(2**31), 404), (str(2**63), 404), (str(2**64 + 5), 404),
                            ("-1", 404), ("abc", 422), ("1.5", 422), ("%20", 422)):
            r = await api.request(method, f"/projects/{odd}{suffix}", admin, json=body)
            assert r.status_code == status, (method, odd, suffix, r.status_code, r.text)
            assert isinstance(r.json()["detail"], str)
    # nothing changed on the other side
    theirs = await api.call("GET", f"/projects/{foreign_pid}", other_admin, 200)
    assert theirs["name"] == "Theirs" and theirs["members"] == []
    assert (await api.call("GET", f"/projects/{pid}", admin, 200))["name"] == "Mine"
    # a body id out of range is a validation error, not a 500
    for user_id in (0, 2**31, 2**63, -1):
        await api.call("POST", f"/projects/{pid}/add-user", admin, 422, json={"user_id": user_id})


async def test_member_edge_cases(api: Api) -> None:
    root = api.root
    assert root is not None
    _, admin = await api.create_tenant()
    _, other_admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    gone = await api.create_user(admin, "Tester")
    foreigner = await api.create_user(other_admin, "Tester")
    pid = (await api.create_project(admin, "Edges"))["project_id"]

    # even the SuperUser, who sees every tenant, cannot make a member across tenants
    err = await api.call("POST", f"/projects/{pid}/add-user", root, 404, json={"user_id": foreigner.id})
    assert "tenant" in err["detail"]
    # a deactivated user cannot be added; an invited one (no password yet) can
    await api.call("PATCH", f"/users/{gone.id}", admin, 200, json={"is_active": False})
    err = await api.call("POST", f"/projects/{pid}/add-user", admin, 422, json={"user_id": gone.id})
    assert "deactivated" in err["detail"]
    invited = await api.call("POST", "/users/create", admin, 201, json={"username": "edge_invitee"})
    await api.add_member(admin, pid, invited["id"], "view")

    # adding with the same role again is a no-op: no second audit row
    await api.add_member(admin, pid, tester.id, "edit")
    await api.add_member(admin, pid, tester.id, "edit")
    rows = await api.call("GET", "/audit/logs", admin, 200, params={"project_id": pid, "action": "project"})
    assert [(r["action"], r["target_id"]) for r in rows] == [
        ("project.member_add", str(tester.id)), ("project.member_add", str(invited["id"])),
        ("project.create", str(pid))]
    detail = await api.call("GET", f"/projects/{pid}", admin, 200)
    assert [m["user_id"] for m in detail["members"]] == [invited["id"], tester.id]

