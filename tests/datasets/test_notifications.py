"""Notifications and audit records of datasets over HTTP: completion and failure notify the
creator only; listing, unread count, mark-read; other users' notifications are 404; the audit
log records dataset.create and dataset.download."""

from __future__ import annotations

import json

from tests.api_client import Api
from tests.datasets.flow import ORDER_JSON, create_dataset, download, upload_schema, wait_for

# the schema generates, but not 10 records with unique codes: a failure only the job can meet (a
# schema no record of which can be generated is refused when the dataset is requested)
BROKEN = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": ["code"],
          "properties": {"code": {"type": "integer", "minimum": 1, "maximum": 5}}}


async def test_completion_and_failure_notify_the_creator_only(api: Api) -> None:
    _, admin = await api.create_tenant()
    creator = await api.create_user(admin, "Manager")
    colleague = await api.create_user(admin, "Tester")
    project = await api.create_project(creator, "Notified")
    pid = project["project_id"]
    await api.add_member(creator, pid, colleague.id, "edit")
    good = await upload_schema(api, creator, ORDER_JSON, "customer_order.schema.json")
    bad = await upload_schema(api, creator, json.dumps(BROKEN).encode(), "broken.json")
    ok = await create_dataset(api, creator, pid, good["schema_id"], 120, name="good one", types=["csv"])
    unique = await api.call("POST", "/constraints", creator, 201, json={
        "name": "unique codes", "schema_id": bad["schema_id"], "rules": [{"path": "code", "unique": True}]})
    ko = await create_dataset(api, creator, pid, bad["schema_id"], 10, name="bad one", types=["csv"],
                              constraint_set_id=unique["constraint_id"])
    assert (await wait_for(api, creator, ok["dataset_id"]))["status"] == "completed"
    failed = await wait_for(api, creator, ko["dataset_id"])
    assert failed["status"] == "failed"

    assert (await api.call("GET", "/notifications/unread-count", creator, 200))["count"] == 2
    listed = await api.call("GET", "/notifications", creator, 200)
    assert len(listed) == 2
    by_type = {n["type"]: n for n in listed}
    assert set(by_type) == {"dataset.completed", "dataset.failed"}
    done = by_type["dataset.completed"]
    assert done["data"]["dataset_id"] == ok["dataset_id"] and done["data"]["project_id"] == pid
    assert "good one" in done["title"] and done["read_at"] is None and done["is_read"] is False
    fail = by_type["dataset.failed"]
    assert "bad one" in fail["title"] and "code" in fail["message"] and fail["message"] == failed["error"]

    # nobody else is told: not the project colleague, not the tenant Admin, not the SuperUser
    for other in (colleague, admin, api.root):
        assert (await api.call("GET", "/notifications/unread-count", other, 200))["count"] == 0
        assert await api.call("GET", "/notifications", other, 200) == []
        r = await api.request("DELETE", f"/notifications/{done['notification_id']}", other)
        assert r.status_code == 404, r.text
    assert (await api.call("GET", "/notifications/unread-count", creator, 200))["count"] == 2

    read = await api.call("DELETE", f"/notifications/{done['notification_id']}", creator, 200)
    assert read["read_at"] is not None and read["is_read"] is True
    again = await api.call("DELETE", f"/notifications/{done['notification_id']}", creator, 200)
    assert again["read_at"] == read["read_at"]  # marking twice keeps the first time
    assert (await api.call("GET", "/notifications/unread-count", creator, 200))["count"] == 1
    unread = await api.call("GET", "/notifications", creator, 200, params={"unread_only": "true"})
    assert [n["notification_id"] for n in unread] == [fail["notification_id"]]
    assert len(await api.call("GET", "/notifications", creator, 200)) == 2
    for bad_id in (0, 10**9):
        r = await api.request("DELETE", f"/notifications/{bad_id}", creator)
        assert r.status_code == 404, (bad_id, r.text)

    r = await download(api, colleague, ok["dataset_id"], "csv")
    assert r.status_code == 200
    logs = await api.call("GET", "/audit/logs", admin, 200, params={"action": "dataset"})
    actions = [(row["action"], row["actor_id"]) for row in logs]
    assert actions.count(("dataset.create", creator.id)) == 2
    assert ("dataset.download", colleague.id) in actions
    created = next(row for row in logs
                   if row["action"] == "dataset.create" and str(row["target_id"]) == str(ok["dataset_id"]))
    assert created["details"]["record_count"] == 120 and created["project_id"] == pid
    downloaded = next(row for row in logs if row["action"] == "dataset.download")
    assert downloaded["details"] == {"format": "csv", "file_index": 0}
