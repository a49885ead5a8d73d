"""Bad dataset requests over HTTP: wrong record counts, unknown params, other tenants' schemas
and constraint sets, invisible projects, read-only members, downloads too early, the manual
trigger's states, and other tenants' dataset ids on every dataset path."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.api_client import Actor, Api
from tests.datasets.flow import ORDER_JSON, ORDER_XSD, create_dataset, download, upload_schema, wait_for

DEFERRED = {"deferred": True}


async def _setup(api: Api) -> tuple[int, Actor, int, int]:
    """A tenant with a Manager, a project and the order schema: (tenant_id, manager, project_id, schema_id)."""
    tenant_id, admin = await api.create_tenant()
    manager = await api.create_user(admin, "Manager")
    project = await api.create_project(manager, "Orders")
    schema = await upload_schema(api, manager, ORDER_JSON, "customer_order.schema.json")
    return tenant_id, manager, project["project_id"], schema["schema_id"]


async def test_record_count_and_params_are_checked(api: Api) -> None:
    tenant_id, manager, pid, sid = await _setup(api)
    base = {"name": "bad", "project_id": pid, "schema_id": sid}
    for count in (0, -1, "5", 1.5, True, None):
        r = await api.request("POST", "/datasets/create", manager, json={**base, "record_count": count})
        assert r.status_code == 422, (count, r.text)
        assert "record_count" in r.json()["detail"], (count, r.json())
    r = await api.request("POST", "/datasets/create", manager, json=base)
    assert r.status_code == 400, r.text
    assert "record_count" in r.json()["detail"]

    await api.call("PUT", f"/tenants/{tenant_id}", api.root, 200, json={"max_record_count": 1000})
    r = await api.request("POST", "/datasets/create", manager, json={**base, "record_count": 1001})
    assert r.status_code == 422 and "1,000" in r.json()["detail"], r.text
    ok = await create_dataset(api, manager, pid, sid, 1000, params=DEFERRED)
    assert ok["status"] == "queued"

    bad_params: list[tuple[dict[str, Any], str]] = [
        ({"colour": "red"}, "colour"), ({"seed": "x"}, "seed"), ({"seed": -1}, "seed"),
        ({"records_per_file": 0}, "records_per_file"), ({"null_rate": 2}, "null_rate"),
        ({"sql_dialect": "oracle"}, "sql_dialect"), ({"csv_delimiter": "ab"}, "csv_delimiter"),
        ({"deferred": "yes"}, "deferred"), ({"root": "#/$defs/nope"}, "nope"),
    ]
    for params, named in bad_params:
        r = await api.request("POST", "/datasets/create", manager, json={**base, "record_count": 10, "params": params})
        assert r.status_code == 422, (params, r.text)
        assert named in r.json()["detail"], (params, r.json())
    for types in (["pdf"], [], ["csv", "parquet"]):
        r = await api.request("POST", "/datasets/create", manager, json={**base, "record_count": 10, "types": types})
        assert r.status_code == 422, (types, r.text)
    # nothing was created by the refused requests
    listed = await api.call("GET", "/datasets", manager, 200, params={"project_id": pid})
    assert [d["dataset_id"] for d in listed] == [ok["dataset_id"]]


async def test_record_count_beyond_32_bits_is_422(api: Api) -> None:
    _, manager, pid, sid = await _setup(api)
    for count in (2**31, 10**12):
        r = await api.request("POST", "/datasets/create", manager,
                              json={"name": "huge", "project_id": pid, "schema_id": sid, "record_count": count})
        assert r.status_code == 422, (count, r.text)


async def test_foreign_schema_and_constraint_sets_are_422(api: Api) -> None:
    _, manager, pid, sid = await _setup(api)
    _, other_manager, _, other_sid = await _setup(api)
    base = {"name": "x", "project_id": pid, "record_count": 5}
    for body, named in (({**base, "schema_id": other_sid}, str(other_sid)), ({**base, "schema_id": 999_999}, "999999")):
        r = await api.request("POST", "/datasets/create", manager, json=body)
        assert r.status_code == 404, (body, r.text)  # a body field naming no visible row, like project_id
        assert named in r.json()["detail"], r.json()
    xsd = await upload_schema(api, manager, ORDER_XSD, "customer_order.xsd")
    xsd_cs = await api.call("POST", "/constraints", manager, 201,
                            json={"name": "xsd rules", "schema_id": xsd["schema_id"], "rules": []})
    other_cs = await api.call("POST", "/constraints", other_manager, 201,
                              json={"name": "theirs", "schema_id": other_sid, "rules": []})
    # another tenant's set names no visible row (404); one of another schema is a mismatch (422)
    for cs, status in ((other_cs, 404), (xsd_cs, 422)):
        r = await api.request("POST", "/datasets/create", manager,
                              json={**base, "schema_id": sid, "constraint_set_id": cs["constraint_id"]})
        assert r.status_code == status, r.text
        assert str(cs["constraint_id"]) in r.json()["detail"], r.json()


async def test_invisible_project_and_read_only_member(api: Api) -> None:
    _, manager, pid, sid = await _setup(api)
    _, _, other_pid, _ = await _setup(api)
    base = {"name": "x", "project_id": pid, "record_count": 5}
    r = await api.request("POST", "/datasets/create", manager, json={**base, "project_id": other_pid, "schema_id": sid})
    assert r.status_code == 404, r.text
    r = await api.request("POST", "/datasets/create", manager, json={**base, "project_id": 10**9, "schema_id": sid})
    assert r.status_code == 404, r.text

    admin_of_tenant = manager  # the Manager owns the project and may invite members
    viewer = await api.create_user(await _tenant_admin(api, manager), "Tester")
    await api.add_member(admin_of_tenant, pid, viewer.id, "view")
    r = await api.request("POST", "/datasets/create", viewer, json={**base, "schema_id": sid})
    assert r.status_code == 403, r.text
    editor = await api.create_user(await _tenant_admin(api, manager), "Tester")
    await api.add_member(admin_of_tenant, pid, editor.id, "edit")
    ds = await create_dataset(api, editor, pid, sid, 5, params=DEFERRED)
    # the viewer sees it but may neither start nor delete it
    await api.call("GET", f"/datasets/{ds['dataset_id']}", viewer, 200)
    assert (await api.request("GET", f"/datasets/generate/{ds['dataset_id']}", viewer)).status_code == 403
    assert (await api.request("DELETE", f"/datasets/{ds['dataset_id']}", viewer)).status_code == 403


async def _tenant_admin(api: Api, member: Actor) -> Actor:
    """A fresh Admin in `member`'s tenant, created by the SuperUser."""
    return await api.create_user(api.root, "Admin", tenant_id=member.tenant_id)  # type: ignore[arg-type]


async def test_download_and_trigger_states(api: Api) -> None:
    _, manager, pid, sid = await _setup(api)
    deferred = await create_dataset(api, manager, pid, sid, 300, types=["csv"], params={**DEFERRED, "seed": 5})
    did = deferred["dataset_id"]
    assert "deferred" not in deferred["params"]
    await asyncio.sleep(1.0)  # several dispatcher ticks: a deferred dataset is not started
    assert (await api.call("GET", f"/datasets/{did}", manager, 200))["status"] == "queued"

    r = await download(api, manager, did, "csv")
    assert r.status_code == 409 and "queued" in r.json()["detail"], r.text
    for fmt in ("pdf", "CSVX", "../etc/passwd"):
        r = await download(api, manager, did, fmt)
        assert r.status_code == 422, (fmt, r.text)
    r = await api.request("GET", f"/data/{did}", manager, params={"format": "csv", "file_index": "first"})
    assert r.status_code == 422, r.text
    r = await api.request("GET", "/datasets", manager, params={"status": "sleeping"})
    assert r.status_code == 422 and "status" in r.json()["detail"], r.text
    queued = await api.call("GET", "/datasets", manager, 200, params={"status": "queued", "project_id": pid})
    assert [d["dataset_id"] for d in queued] == [did]

    started = await api.call("GET", f"/datasets/generate/{did}", manager, 200)
    assert started["dataset_id"] == did and started["status"] in ("queued", "running", "completed")
    again = await api.request("GET", f"/datasets/generate/{did}", manager)
    # idempotent: still queued -> 200; already picked up -> 409 naming the state; never a second run
    assert again.status_code in (200, 409), again.text
    if again.status_code == 409:
        assert any(s in again.json()["detail"] for s in ("running", "completed")), again.text
    done = await wait_for(api, manager, did)
    assert done["status"] == "completed" and done["attempt"] == 1, done
    r = await api.request("GET", f"/datasets/generate/{did}", manager)
    assert r.status_code == 409 and "completed" in r.json()["detail"], r.text

    cancelled = await create_dataset(api, manager, pid, sid, 10, params=DEFERRED)
    r = await api.request("DELETE", f"/datasets/{cancelled['dataset_id']}", manager)
    assert r.status_code == 200 and r.json()["status"] == "cancelled", r.text
    r = await api.request("GET", f"/datasets/generate/{cancelled['dataset_id']}", manager)
    assert r.status_code == 409 and "cancelled" in r.json()["detail"], r.text
    r = await download(api, manager, cancelled["dataset_id"], "json")
    assert r.status_code == 409 and "cancelled" in r.json()["detail"], r.text


async def test_other_tenants_dataset_ids_are_404_everywhere(api: Api) -> None:
    _, manager, pid, sid = await _setup(api)
    _, stranger, _, _ = await _setup(api)
    ds = await create_dataset(api, manager, pid, sid, 10, params=DEFERRED)
    did = ds["dataset_id"]
    for method, path, params in (
        ("GET", f"/datasets/{did}", None), ("DELETE", f"/datasets/{did}", None),
        ("GET", f"/datasets/generate/{did}", None), ("GET", f"/data/{did}", {"format": "csv"}),
        ("GET", "/datasets", {"project_id": pid}),
        ("GET", "/datasets/0", None), ("GET", f"/datasets/{10**15}", None), ("GET", f"/data/{10**15}", None),
    ):
        r = await api.request(method, path, stranger, params=params)
        assert r.status_code == 404, (method, path, r.status_code, r.text)
    listed = await api.call("GET", "/datasets", stranger, 200)
    assert did not in [d["dataset_id"] for d in listed]
    # and the owner's dataset is untouched by all of that
    assert (await api.call("GET", f"/datasets/{did}", manager, 200))["status"] == "queued"
