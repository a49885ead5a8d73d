"""Tenants over HTTP. As implemented (app/core/services/tenants.py): every user lists and reads
their own tenant; another tenant's id is 403 for everyone but a SuperUser, whether or not it
exists (the role check comes before the lookup, so nothing leaks); creating and changing
tenants is SuperUser only, even for an Admin's own tenant."""

from __future__ import annotations

from tests.api_client import TENANT_ADMIN_PASSWORD, Api, unique


async def test_listing_and_reading(api: Api) -> None:
    root = api.root
    assert root is not None
    tenant_id, admin = await api.create_tenant("Initech")
    other_id, _ = await api.create_tenant("Umbrella")
    tester = await api.create_user(admin, "Tester")

    for actor in (admin, tester):
        r = await api.request("GET", "/tenants", actor)
        assert r.status_code == 200 and r.headers["X-Total-Count"] == "1"
        assert [t["name"] for t in r.json()] == ["Initech"]
        own = await api.call("GET", f"/tenants/{tenant_id}", actor, 200)
        assert own["tenant_id"] == tenant_id and own["is_active"] is True and own["max_concurrent_generations"] == 4
        for foreign in (other_id, root.tenant_id, 99999):
            await api.call("GET", f"/tenants/{foreign}", actor, 403)

    r = await api.request("GET", "/tenants", root)
    assert [t["name"] for t in r.json()] == ["default", "Initech", "Umbrella"] and r.headers["X-Total-Count"] == "3"
    r = await api.request("GET", "/tenants", root, params={"limit": 1, "offset": 2})
    assert [t["name"] for t in r.json()] == ["Umbrella"] and r.headers["X-Total-Count"] == "3"
    assert (await api.call("GET", f"/tenants/{other_id}", root, 200))["name"] == "Umbrella"
    await api.call("GET", "/tenants/99999", root, 404)
    await api.call("GET", "/tenants/0", root, 404)
    await api.call("GET", "/tenants", root, 422, params={"limit": 0})


async def test_create(api: Api) -> None:
    root = api.root
    assert root is not None
    _, admin = await api.create_tenant("Hooli")

    def body(**over: object) -> dict[str, object]:
        name = unique("adm")
        return {"name": unique("t"), "admin_username": name, "admin_email": f"{name}@example.com",
                "admin_password": TENANT_ADMIN_PASSWORD} | over

    created = await api.call("POST", "/tenants", root, 201, json=body(name="Pied Piper"))
    assert created["name"] == "Pied Piper" and created["admin_user_id"] > 0
    for name in ("Pied Piper", "pied piper", "  Hooli  "):
        err = await api.call("POST", "/tenants", root, 409, json=body(name=name))
        assert "already exists" in err["detail"]
    await api.call("POST", "/tenants", root, 409, json=body(admin_username=admin.username))
    await api.call("POST", "/tenants", admin, 403, json=body())
    await api.call("POST", "/tenants", root, 422, json=body(admin_password="short"))
    await api.call("POST", "/tenants", root, 422, json=body(admin_email="nope"))
    await api.call("POST", "/tenants", root, 422, json=body(name=""))
    await api.call("POST", "/tenants", root, 422, json=body(max_record_count=5))
    incomplete = body()
    del incomplete["admin_password"]
    await api.call("POST", "/tenants", root, 400, json=incomplete)
    # nothing half-created by the refusals
    r = await api.request("GET", "/tenants", root)
    assert r.headers["X-Total-Count"] == "3"
    users = await api.call("GET", "/users", root, 200, params={"tenant_id": created["tenant_id"]})
    assert [(u["id"], u["role"]) for u in users] == [(created["admin_user_id"], "Admin")]


async def test_update(api: Api) -> None:
    root = api.root
    assert root is not None
    tenant_id, admin = await api.create_tenant("Vandelay")
    await api.create_tenant("Kramerica")

    await api.call("PUT", f"/tenants/{tenant_id}", admin, 403, json={"max_record_count": 5})
    updated = await api.call("PUT", f"/tenants/{tenant_id}", root, 200, json={
        "name": "Vandelay Industries", "max_record_count": 1000, "max_concurrent_generations": 2,
        "retention_days": 30})
    assert (updated["name"], updated["max_record_count"], updated["max_concurrent_generations"],
            updated["retention_days"]) == ("Vandelay Industries", 1000, 2, 30)
    assert (await api.call("GET", f"/tenants/{tenant_id}", admin, 200)) == updated
    await api.call("PUT", f"/tenants/{tenant_id}", root, 409, json={"name": "KRAMERICA"})
    await api.call("PUT", f"/tenants/{tenant_id}", root, 200, json={"name": "vandelay industries"})
    await api.call("PUT", f"/tenants/{root.tenant_id}", root, 409, json={"is_active": False})
    await api.call("PUT", "/tenants/99999", root, 404, json={"retention_days": 1})
    for bad in ({}, {"retention_days": 0}, {"max_concurrent_generations": 65}, {"max_record_count": "5"},
                {"max_record_count": True}, {"id": 3}, {"name": None, "is_active": "yes"}):
        await api.call("PUT", f"/tenants/{tenant_id}", root, 422, json=bad)

    audit = await api.call("GET", "/audit/logs", admin, 200, params={"action": "tenant.update"})
    assert [row["details"] for row in audit] == [
        {"name": "vandelay industries"},
        {"name": "Vandelay Industries", "max_record_count": 1000, "max_concurrent_generations": 2,
         "retention_days": 30},
    ]
