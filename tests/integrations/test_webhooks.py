"""Webhook delivery end to end: a real receiver on loopback verifies every request with the
Standard Webhooks reference verifier; retries keep one webhook-id; a receiver that stays down
ends `failed` and disables the integration; a restart between attempts still delivers; the
connection test pings; deliveries never hold up the request that caused them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import httpx
import orjson
import pytest
import time_machine
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from app.core.settings import Settings
from app.main import create_app
from tests.api_client import Api
from tests.conftest import ADMIN_PASSWORD
from tests.integrations.flow import create_webhook, deliveries, settled, wait_for_deliveries
from tests.integrations.receiver import Receiver, closed_port
from tests.support.waiting import eventually


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


def _verify(secret: str, request: object) -> dict[str, object]:
    """Verify with the Standard Webhooks reference implementation; returns the payload."""
    return Webhook(secret).verify(request.body, request.headers)  # type: ignore[attr-defined]


async def test_fails_twice_then_delivers_with_one_webhook_id(api: Api, receiver: Receiver) -> None:
    _, admin = await api.create_tenant()
    receiver.statuses = [500, 503]
    hook = await create_webhook(api, admin, receiver.url, events=["project.created"])
    secret = hook["signing_secret"]
    assert secret.startswith("whsec_") and hook["secret_fields"] == ["signing_secret"]

    project = await api.create_project(admin, "Webhooked")
    rows = await wait_for_deliveries(api, admin, hook["integration_id"], settled(1))
    [delivery] = rows
    assert delivery["status"] == "succeeded" and delivery["attempts"] == 3
    assert [a["status_code"] for a in delivery["attempt_log"]] == [500, 503, 200]
    assert [a["attempt"] for a in delivery["attempt_log"]] == [1, 2, 3]
    assert all(len(a["response_body"]) <= 1024 for a in delivery["attempt_log"])

    assert len(receiver.requests) == 3
    ids = {r.headers["webhook-id"] for r in receiver.requests}
    assert ids == {delivery["webhook_id"]}
    bodies = {r.body for r in receiver.requests}
    assert len(bodies) == 1  # the same bytes every time
    for request in receiver.requests:
        payload = _verify(secret, request)
        assert payload["type"] == "project.created" and payload["id"] == delivery["webhook_id"]
        assert payload["data"]["project_id"] == project["project_id"]
        assert payload["tenant_id"] == admin.tenant_id
    # a wrong secret does not verify: the check above is real
    with pytest.raises(WebhookVerificationError):
        Webhook("whsec_" + "QUJD" * 8).verify(receiver.requests[0].body, receiver.requests[0].headers)
    assert delivery["payload"] == orjson.loads(receiver.requests[0].body)

    # manual redelivery: same webhook-id, same body, a new delivery row
    again = await api.call("POST", f"/integrations/{hook['integration_id']}/deliveries/{delivery['delivery_id']}"
                           "/redeliver", admin, 202)
    assert again["webhook_id"] == delivery["webhook_id"] and again["status"] == "pending"
    await wait_for_deliveries(api, admin, hook["integration_id"], settled(2))
    assert len(receiver.requests) == 4 and receiver.requests[3].body == receiver.requests[0].body
    _verify(secret, receiver.requests[3])


async def test_only_subscribed_events_of_the_tenant_are_sent(api: Api, receiver: Receiver) -> None:
    _, admin = await api.create_tenant()
    _, other_admin = await api.create_tenant()
    hook = await create_webhook(api, admin, receiver.url, events=["schema.uploaded"])
    await api.create_project(admin, "Not subscribed")
    await api.create_project(other_admin, "Other tenant")
    await api.call("POST", "/schemas", other_admin, 201, json={"name": "s", "content": '{"type": "object"}'})
    await api.call("POST", "/schemas", admin, 201, json={"name": "mine", "content": '{"type": "object"}'})
    # events fan out in order of creation, each batch in one commit: the earlier, unsubscribed
    # events were fanned out by the time the last one's delivery shows
    rows = await wait_for_deliveries(api, admin, hook["integration_id"], settled(1))
    assert [r["event_type"] for r in rows] == ["schema.uploaded"]
    assert [orjson.loads(r.body)["type"] for r in receiver.requests] == ["schema.uploaded"]
    assert orjson.loads(receiver.requests[0].body)["data"]["name"] == "mine"


async def test_receiver_down_fails_and_disables_after_repeated_failed_events(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    hook = await create_webhook(api, admin, f"http://127.0.0.1:{closed_port()}/hook", events=["project.created"])
    hook_id = hook["integration_id"]
    await api.create_project(admin, "One")
    rows = await wait_for_deliveries(api, admin, hook_id, settled(1))
    assert rows[0]["status"] == "failed" and rows[0]["attempts"] == len(settings.webhook_retry_schedule) + 1
    assert all(a["status_code"] is None and "Connection failed" in a["error"] for a in rows[0]["attempt_log"])
    state = (await api.call("GET", "/integrations", admin, 200))[0]
    assert state["is_active"] is True and state["consecutive_failures"] == 1

    await api.create_project(admin, "Two")
    await wait_for_deliveries(api, admin, hook_id, settled(2))
    state = (await api.call("GET", "/integrations", admin, 200))[0]
    assert state["is_active"] is False and state["consecutive_failures"] == 2
    assert "2 consecutive events" in state["disabled_reason"]

    # a disabled integration gets no new deliveries and refuses redelivery
    await api.create_project(admin, "Three")
    await asyncio.sleep(0.4)
    rows = await deliveries(api, admin, hook_id)
    assert len(rows) == 2
    r = await api.request("POST", f"/integrations/{hook_id}/deliveries/{rows[0]['delivery_id']}/redeliver", admin)
    assert r.status_code == 409 and "disabled" in r.json()["detail"]
    # re-enabling resets the failure count
    body = await api.call("PUT", f"/integrations/{hook_id}", admin, 200, json={"is_active": True})
    assert body["is_active"] is True and body["consecutive_failures"] == 0 and body["disabled_reason"] is None


async def test_redirects_are_not_followed(api: Api, receiver: Receiver) -> None:
    target = Receiver()
    try:
        receiver.default_status, receiver.redirect_to = 307, target.url
        _, admin = await api.create_tenant()
        hook = await create_webhook(api, admin, receiver.url, events=["project.created"])
        await api.create_project(admin, "Redirected")
        rows = await wait_for_deliveries(api, admin, hook["integration_id"], settled(1))
        assert rows[0]["status"] == "failed"
        assert "redirects are not followed" in rows[0]["last_error"]
        assert len(receiver.requests) == 3 and target.requests == []
    finally:
        target.close()


async def test_connection_test_pings(api: Api, receiver: Receiver) -> None:
    _, admin = await api.create_tenant()
    hook = await create_webhook(api, admin, receiver.url)
    body = await api.call("POST", f"/integrations/{hook['integration_id']}/test", admin, 200)
    assert body["ok"] is True and body["status_code"] == 200
    [request] = receiver.requests
    payload = _verify(hook["signing_secret"], request)
    assert payload["type"] == "ping" and payload["data"]["integration_id"] == hook["integration_id"]
    rows = await deliveries(api, admin, hook["integration_id"])
    assert [(r["event_type"], r["status"], r["attempts"]) for r in rows] == [("ping", "succeeded", 1)]

    receiver.default_status = 418
    body = await api.call("POST", f"/integrations/{hook['integration_id']}/test", admin, 200)
    assert body["ok"] is False and body["status_code"] == 418 and "418" in body["detail"]

    # rotating the secret: the old one stops verifying, the new one (shown once) works
    rotated = await api.call("PUT", f"/integrations/{hook['integration_id']}", admin, 200, json={"rotate_secret": True})
    assert rotated["signing_secret"] and rotated["signing_secret"] != hook["signing_secret"]
    receiver.default_status = 200
    await api.call("POST", f"/integrations/{hook['integration_id']}/test", admin, 200)
    _verify(rotated["signing_secret"], receiver.requests[-1])
    with pytest.raises(WebhookVerificationError):
        _verify(hook["signing_secret"], receiver.requests[-1])


async def test_delivery_never_blocks_the_request(settings: Settings) -> None:
    """A receiver that hangs does not slow down the request that caused the event: delivering
    inline would hold each request for the whole delivery timeout, long even on a loaded machine."""
    import socket

    hanging = settings.model_copy(update={"webhook_timeout_seconds": 120.0})
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)  # accepts connections, never answers
    try:
        async with _running(hanging) as api:
            await api.login_as_root(ADMIN_PASSWORD)
            _, admin = await api.create_tenant()
            hook = await create_webhook(api, admin, f"http://127.0.0.1:{listener.getsockname()[1]}/slow")
            started = time.monotonic()
            for i in range(3):
                await api.create_project(admin, f"Fast {i}")
            assert time.monotonic() - started < hanging.webhook_timeout_seconds
            rows = await eventually(lambda: deliveries(api, admin, hook["integration_id"]))
            assert rows and all(r["status"] == "pending" for r in rows)
            listener.close()  # the hanging deliveries fail now, not after their timeout
    finally:
        listener.close()


@asynccontextmanager
async def _running(settings: Settings) -> AsyncIterator[Api]:
    """A whole service process: start-up, HTTP client, shutdown."""
    app = create_app(settings, run_migrations=False)
    transport = httpx.ASGITransport(app=app)
    async with app.router.lifespan_context(app), httpx.AsyncClient(transport=transport, base_url="http://t") as c:
        yield Api(c)


async def test_restart_between_attempts_still_delivers(settings: Settings, receiver: Receiver,
                                                      clock: time_machine.Traveller) -> None:
    """The first process fails the first attempt and stops; a new process delivers the retry."""
    slow = settings.model_copy(update={"webhook_retry_schedule": [60]})
    receiver.statuses = [500]

    async with _running(slow) as api:
        await api.login_as_root(ADMIN_PASSWORD)
        _, admin = await api.create_tenant()
        hook = await create_webhook(api, admin, receiver.url, events=["project.created"])
        await api.create_project(admin, "Across a restart")
        rows = await wait_for_deliveries(api, admin, hook["integration_id"], lambda rs: rs and rs[0]["attempts"] == 1)
        assert rows[0]["status"] == "pending" and len(receiver.requests) == 1
    # the first process is gone; its retry is only in the database, due a minute later
    clock.shift(60)
    async with _running(slow) as api:
        admin = await api.login(admin.username, admin.password)
        rows = await wait_for_deliveries(api, admin, hook["integration_id"], settled(1))
    assert rows[0]["status"] == "succeeded" and rows[0]["attempts"] == 2
    assert [r.headers["webhook-id"] for r in receiver.requests] == [rows[0]["webhook_id"]] * 2
    for request in receiver.requests:
        _verify(hook["signing_secret"], request)
