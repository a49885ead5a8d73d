"""User administration over HTTP: the privilege rules of DESIGN §4, search, tenant isolation,
and bodies that try to set what they may not."""

from __future__ import annotations

import asyncio
from collections import Counter

from tests.api_client import USER_PASSWORD, Api, unique


async def test_grant_rules(api: Api) -> None:
    root = api.root
    assert root is not None
    tenant_id, admin = await api.create_tenant()
    manager = await api.create_user(admin, "Manager")
    tester = await api.create_user(admin, "Tester")

    # an Admin may grant up to Admin, never SuperUser
    second_admin = await api.create_user(admin, "Admin")
    await api.call("POST", "/users/create", admin, 403, json={"username": unique("su"), "role": "SuperUser",
                                                               "password": USER_PASSWORD})
    await api.call("PATCH", f"/users/{tester.id}", admin, 403, json={"role": "SuperUser"})
    # a Manager may not create users, nor grant anything through PATCH
    await api.call("POST", "/users/create", manager, 403, json={"username": unique("x"), "password": USER_PASSWORD})
    await api.call("PATCH", f"/users/{tester.id}", manager, 403, json={"role": "Manager"})
    await api.call("POST", "/users/create", tester, 403, json={"username": unique("x"), "password": USER_PASSWORD})
    # nobody changes their own role, not even the SuperUser; nobody deactivates themself
    for actor, role in ((admin, "Manager"), (manager, "Admin"), (tester, "Manager"), (root, "Admin")):
        err = await api.call("PATCH", f"/users/{actor.id}", actor, 403, json={"role": role})
        assert "own role" in err["detail"]
    await api.call("PATCH", f"/users/{admin.id}", admin, 403, json={"is_active": False})
    # sending one's own current role is not a change
    me = await api.call("PATCH", f"/users/{admin.id}", admin, 200, json={"role": "Admin", "display_name": "Boss"})
    assert me["role"] == "Admin" and me["display_name"] == "Boss"

    # an Admin may not touch a SuperUser of their tenant
    su = await api.call("POST", "/users/create", root, 201, json={
        "username": unique("su"), "password": USER_PASSWORD, "role": "SuperUser", "tenant_id": tenant_id})
    assert su["role"] == "SuperUser" and su["tenant_id"] == tenant_id
    # ... into a tenant that exists: 404, no user made
    missing = await api.call("POST", "/users/create", root, 404, json={
        "username": unique("x"), "password": USER_PASSWORD, "tenant_id": 2_000_000_000})
    assert missing["code"] == "tenant_not_found"
    await api.call("PATCH", f"/users/{su['id']}", admin, 403, json={"is_active": False})
    await api.call("PATCH", f"/users/{su['id']}", admin, 403, json={"role": "Tester"})
    # only a SuperUser promotes to SuperUser
    promoted = await api.call("PATCH", f"/users/{manager.id}", root, 200, json={"role": "SuperUser"})
    assert promoted["role"] == "SuperUser"
    assert (await api.call("GET", "/users/me", manager, 200))["role"] == "SuperUser"

    # an Admin changes an Admin and below
    assert (await api.call("PATCH", f"/users/{tester.id}", admin, 200, json={"role": "Manager"}))["role"] == "Manager"
    changed = await api.call("PATCH", f"/users/{second_admin.id}", admin, 200,
                             json={"display_name": "Second", "email": "second@example.com"})
    assert changed["display_name"] == "Second" and changed["email"] == "second@example.com"
    await api.call("PATCH", f"/users/{second_admin.id}", admin, 422, json={})
    await api.call("PATCH", f"/users/{second_admin.id}", admin, 409, json={"email": f"{tester.username}@example.com"})


async def test_last_active_admin_is_protected(api: Api) -> None:
    root = api.root
    assert root is not None
    _, admin = await api.create_tenant()
    for body in ({"role": "Manager"}, {"is_active": False}):
        err = await api.call("PATCH", f"/users/{admin.id}", root, 409, json=body)
        assert "last active Admin" in err["detail"]
    other = await api.create_user(admin, "Admin")
    # with two active Admins one may go; then the remaining one is protected again
    await api.call("PATCH", f"/users/{other.id}", admin, 200, json={"is_active": False})
    await api.call("PATCH", f"/users/{admin.id}", root, 409, json={"role": "Tester"})
    await api.call("PATCH", f"/users/{admin.id}", root, 409, json={"is_active": False})
    # the inactive Admin does not count, and may itself be demoted
    demoted = await api.call("PATCH", f"/users/{other.id}", admin, 200, json={"role": "Manager"})
    assert demoted["role"] == "Manager" and demoted["is_active"] is False
    await api.call("PATCH", f"/users/{other.id}", admin, 200, json={"is_active": True, "role": "Admin"})
    await api.call("PATCH", f"/users/{admin.id}", root, 200, json={"role": "Manager"})
    assert (await api.call("GET", "/users/me", admin, 200))["role"] == "Manager"


async def test_search_and_paging(api: Api) -> None:
    root = api.root
    assert root is not None
    tenant_id, admin = await api.create_tenant()
    other_tenant, other_admin = await api.create_tenant()
    m1 = await api.create_user(admin, "Manager", "zed_manager_one")
    await api.create_user(admin, "Manager", "zed_manager_two", display_name="Night Owl")
    t1 = await api.create_user(admin, "Tester", "zed_tester_one")
    await api.create_user(other_admin, "Tester", "zed_foreign_tester")
    await api.call("PATCH", f"/users/{t1.id}", admin, 200, json={"is_active": False})

    async def search(actor, params, total):  # type: ignore[no-untyped-def]
        r = await api.request("GET", "/users", actor, params=params)
        assert r.status_code == 200, r.text
        assert r.headers["X-Total-Count"] == str(total), (params, r.json())
        return [u["username"] for u in r.json()]

    all_names = await search(admin, {}, 4)
    assert all_names == [admin.username, "zed_manager_one", "zed_manager_two", "zed_tester_one"]
    assert await search(m1, {}, 4) == all_names  # Managers may list users too
    assert await search(admin, {"q": "ZED_"}, 3) == all_names[1:]
    assert await search(admin, {"q": "owl"}, 1) == ["zed_manager_two"]  # display name
    assert await search(admin, {"q": "tester_one@example"}, 1) == ["zed_tester_one"]  # email
    assert await search(admin, {"role": "Manager"}, 2) == ["zed_manager_one", "zed_manager_two"]
    assert await search(admin, {"is_active": "false"}, 1) == ["zed_tester_one"]
    assert await search(admin, {"is_active": "true", "role": "Tester"}, 0) == []
    assert await search(admin, {"limit": 2, "offset": 1}, 4) == all_names[1:3]
    assert await search(admin, {"limit": 2, "offset": 10}, 4) == []
    assert await search(admin, {"q": "%"}, 0) == []
    # the tenant filter cannot widen an Admin's view
    assert await search(admin, {"tenant_id": other_tenant}, 0) == []
    assert await search(root, {"tenant_id": other_tenant}, 2) == [other_admin.username, "zed_foreign_tester"]
    assert "zed_foreign_tester" in await search(root, {"q": "zed_"}, 4)

    for params in ({"role": "King"}, {"is_active": "maybe"}, {"limit": 0}, {"limit": 501}, {"offset": -1},
                   {"limit": "ten"}):
        await api.call("GET", "/users", admin, 422, params=params)
    await api.call("GET", "/users", await api.create_user(admin, "Tester"), 403)
    assert (await api.request("GET", "/users", admin)).headers["X-Total-Count"] == "5"
    assert tenant_id != other_tenant


async def test_user_visibility(api: Api) -> None:
    _, admin = await api.create_tenant()
    _, other_admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    colleague = await api.create_user(admin, "Tester")
    foreigner = await api.create_user(other_admin, "Tester")

    own = await api.call("GET", f"/users/{tester.id}", tester, 200)
    assert own["username"] == tester.username and own["projects"] == []
    assert "password_hash" not in own and "password" not in own
    await api.call("GET", f"/users/{colleague.id}", tester, 403)
    await api.call("GET", f"/users/{foreigner.id}", tester, 404)
    await api.call("GET", f"/users/{colleague.id}", admin, 200)
    for method, body in (("GET", None), ("PATCH", {"role": "Manager"}), ("PATCH", {"is_active": False})):
        err = await api.call(method, f"/users/{foreigner.id}", admin, 404, json=body)
        assert err["detail"] == f"User {foreigner.id} was not found."
    await api.call("GET", "/users/999999", admin, 404)
    # the foreign user is untouched
    assert (await api.call("GET", "/users/me", foreigner, 200))["role"] == "Tester"


async def test_privileged_fields_are_never_applied(api: Api) -> None:
    root = api.root
    assert root is not None
    tenant_id, admin = await api.create_tenant()
    other_tenant, _ = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")

    err = await api.call("POST", "/users/create", admin, 403, json={
        "username": unique("x"), "password": USER_PASSWORD, "tenant_id": other_tenant})
    assert "SuperUser" in err["detail"]
    # naming one's own tenant is harmless
    same = await api.call("POST", "/users/create", admin, 201, json={
        "username": unique("x"), "password": USER_PASSWORD, "tenant_id": tenant_id})
    assert same["tenant_id"] == tenant_id
    for extra in ({"id": 1}, {"password_hash": "$argon2id$v=19$m=1,t=1,p=1$AAAA$AAAA"}, {"is_superuser": True},
                  {"created_by": 1}):
        name = unique("x")
        err = await api.call("POST", "/users/create", admin, 422, json={
            "username": name, "password": USER_PASSWORD, **extra})
        assert next(iter(extra)) in err["detail"]
        await api.call("GET", "/users", admin, 200, params={"q": name})
        assert (await api.request("GET", "/users", admin, params={"q": name})).headers["X-Total-Count"] == "0"
    for extra in ({"tenant_id": other_tenant}, {"id": admin.id}, {"password_hash": "x"}, {"username": "renamed"},
                  {"password": "new-password-1"}):
        await api.call("PATCH", f"/users/{tester.id}", admin, 422, json={"display_name": "Ok", **extra})
    after = await api.call("GET", f"/users/{tester.id}", admin, 200)
    assert after["tenant_id"] == tenant_id and after["username"] == tester.username and after["display_name"] is None
    await api.login(tester.username, USER_PASSWORD)  # password unchanged

    # usernames are global, emails unique per tenant
    await api.call("POST", "/users/create", root, 409, json={
        "username": tester.username, "password": USER_PASSWORD, "tenant_id": other_tenant})
    await api.call("POST", "/users/create", admin, 409, json={
        "username": unique("x"), "password": USER_PASSWORD, "email": f"{tester.username}@example.com"})
    await api.call("POST", "/users/create", root, 201, json={
        "username": unique("x"), "password": USER_PASSWORD, "email": f"{tester.username}@example.com",
        "tenant_id": other_tenant})
    # bad values
    for body in ({"username": "ab", "password": USER_PASSWORD}, {"username": "has space", "password": USER_PASSWORD},
                 {"username": unique("x"), "password": "short"}, {"username": unique("x"), "email": "not-an-email"},
                 {"username": unique("x"), "role": "Emperor"}, {"username": unique("x"), "tenant_id": 0}):
        await api.call("POST", "/users/create", admin, 422, json=body)
    await api.call("POST", "/users/create", admin, 400, json={"password": USER_PASSWORD})


async def test_concurrent_duplicates_conflict_cleanly(api: Api) -> None:
    """A race past the service's uniqueness check ends in 409 from the constraint, never 500."""
    root = api.root
    assert root is not None
    _, admin = await api.create_tenant()

    async def create_user() -> int:
        r = await api.request("POST", "/users/create", admin, json={"username": "raced_name",
                                                                     "password": USER_PASSWORD})
        return r.status_code

    async def create_tenant(i: int) -> int:
        r = await api.request("POST", "/tenants", root, json={
            "name": "Raced", "admin_username": f"raced_admin_{i}", "admin_email": f"r{i}@example.com",
            "admin_password": USER_PASSWORD})
        return r.status_code

    assert Counter(await asyncio.gather(*(create_user() for _ in range(6)))) == {201: 1, 409: 5}
    assert Counter(await asyncio.gather(*(create_tenant(i) for i in range(4)))) == {201: 1, 409: 3}
    assert (await api.request("GET", "/users", admin, params={"q": "raced_name"})).headers["X-Total-Count"] == "1"

