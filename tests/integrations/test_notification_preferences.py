"""Notification switches act: `webhook` off stops forwarding the events a user causes,
`in_app` off stops their in-app notifications; the other users' events still flow."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.api_client import Api
from tests.datasets.flow import wait_for
from tests.integrations.flow import create_webhook, settled, wait_for_deliveries
from tests.integrations.receiver import Receiver
from tests.paths import BENCH

ORDER_JSON = (BENCH / "customer_order.schema.json").read_bytes()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


async def test_switches_stop_webhooks_and_in_app_notifications(api: Api, receiver: Receiver) -> None:
    _, admin = await api.create_tenant()
    quiet = await api.create_user(admin, "Manager")
    loud = await api.create_user(admin, "Manager")
    hook = await create_webhook(api, admin, receiver.url, events=["project.created", "dataset.completed"])
    r = await api.request("POST", "/settings/notifications", quiet, json={"preferences": {
        "project.created": {"webhook": False}, "dataset.completed": {"in_app": False}}})
    assert r.status_code == 200, r.text

    await api.create_project(quiet, "Quiet")
    await api.create_project(loud, "Loud")
    # events fan out in order of creation, each batch in one commit: once Loud's delivery shows,
    # a wrongly forwarded Quiet delivery (the earlier event) would show too
    rows = await wait_for_deliveries(api, admin, hook["integration_id"], settled(1))
    assert [row["payload"]["data"]["name"] for row in rows] == ["Loud"]

    # in-app: the quiet user's finished dataset notifies nobody, the loud user's notifies them
    for user in (quiet, loud):
        project = (await api.request("GET", "/projects", user)).json()[0]
        upload = await api.request("POST", "/schemas", user, files={"file": ("o.json", ORDER_JSON)})
        r = await api.request("POST", "/datasets/create", user, json={
            "name": "n", "project_id": project["project_id"], "schema_id": upload.json()["schema_id"],
            "record_count": 10})
        assert r.status_code == 201, r.text
        body = await wait_for(api, user, r.json()["dataset_id"])
        assert body["status"] == "completed"
    assert (await api.request("GET", "/notifications/unread-count", quiet)).json() == {"count": 0}
    assert (await api.request("GET", "/notifications/unread-count", loud)).json() == {"count": 1}
