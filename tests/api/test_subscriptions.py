"""Live dataset progress over a real WebSocket: `tdg serve`'s app on a loopback port (uvicorn in a
thread), a graphql-transport-ws client, tokens from the log-in door. A dataset is followed to
completed; a socket without a valid token is refused; another tenant's dataset is NOT_FOUND; a
deactivated user's stream ends UNAUTHENTICATED."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from app.core.datasets import updates as dataset_updates
from app.core.settings import Settings
from app.main import create_app
from tests.api_client import Actor, Api
from tests.conftest import ADMIN_PASSWORD
from tests.datasets.flow import ORDER_JSON, create_dataset, upload_schema
from tests.support.waiting import eventually_sync

FOLLOW = """subscription Follow($dataset_id: Int, $project_id: Int) {
  dataset_updates(dataset_id: $dataset_id, project_id: $project_id) {
    dataset_id status progress records_generated files { format file_index records }
  }
}"""
# deadline for any one message, not a wait: the next change may need a cold pool process (spawn,
# imports, vocabularies at nice 19) to start, which on a loaded machine takes far longer than idle
WAIT = 300.0


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"dispatch_interval_seconds": 0.2})


@pytest.fixture
def server(settings: Settings) -> Iterator[str]:
    """The app served by uvicorn on a free loopback port, as `tdg serve` does."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(create_app(settings, run_migrations=False), log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()

    def started() -> bool:
        assert thread.is_alive(), "uvicorn stopped"
        return bool(server.started)

    eventually_sync(started, timeout=120, what="uvicorn starting")
    yield f"127.0.0.1:{sock.getsockname()[1]}"
    server.should_exit = True
    thread.join(timeout=30)
    sock.close()


@pytest.fixture
async def api(server: str) -> AsyncIterator[Api]:
    async with httpx.AsyncClient(base_url=f"http://{server}", timeout=30.0) as client:
        api = Api(client)
        await api.login_as_root(ADMIN_PASSWORD)
        yield api


async def _receive(ws: ClientConnection) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(ws.recv(), WAIT))  # type: ignore[no-any-return]


async def _open(server: str, actor: Actor | None, protocol: str = "graphql-transport-ws",
                headers: dict[str, str] | None = None) -> ClientConnection:
    ws = await connect(f"ws://{server}/graphql", subprotocols=[protocol], additional_headers=headers)  # type: ignore[list-item]
    payload = {"authorization": f"Bearer {actor.token}"} if actor else {}
    await ws.send(json.dumps({"type": "connection_init", "payload": payload}))
    return ws


async def _subscribe(ws: ClientConnection, op_id: str, query: str = FOLLOW, **variables: Any) -> None:
    await ws.send(json.dumps({"id": op_id, "type": "subscribe", "payload": {"query": query, "variables": variables}}))


async def _setup(api: Api) -> tuple[Actor, int, int]:
    """A tenant Admin with a project and the benchmark schema."""
    _, admin = await api.create_tenant()
    project = await api.create_project(admin, "Live")
    schema = await upload_schema(api, admin, ORDER_JSON, "customer_order.schema.json")
    return admin, project["project_id"], schema["schema_id"]


def _state(update: dict[str, Any]) -> tuple[str, float, int]:
    return update["status"], update["progress"], update["records_generated"]


async def test_a_dataset_is_followed_to_completed(api: Api, server: str) -> None:
    admin, project_id, schema_id = await _setup(api)
    ws = await _open(server, admin)
    try:
        assert (await _receive(ws))["type"] == "connection_ack"
        # the project stream is open before the dataset exists: it is sent as new
        await _subscribe(ws, "project", project_id=project_id)
        dataset = await create_dataset(api, admin, project_id, schema_id, 2_000, types=["json", "csv"],
                                       params={"seed": 5})
        did = dataset["dataset_id"]
        await _subscribe(ws, "one", dataset_id=did)
        one: list[dict[str, Any]] = []
        project: list[dict[str, Any]] = []
        one_done = False
        while not one_done or not project or project[-1]["status"] != "completed":
            message = await _receive(ws)
            if message["type"] == "complete":
                assert message["id"] == "one"
                one_done = True
                continue
            assert message["type"] == "next" and "errors" not in message["payload"], message
            update = message["payload"]["data"]["dataset_updates"]
            assert update["dataset_id"] == did
            (one if message["id"] == "one" else project).append(update)
        await ws.send(json.dumps({"id": "project", "type": "complete"}))
    finally:
        await ws.close()

    for updates in (one, project):
        states = [_state(u) for u in updates]
        assert len(set(states)) == len(states), states  # each change once
        assert states[-1] == ("completed", 1.0, 2_000)
        assert all(s[0] in ("queued", "running") for s in states[:-1]), states
        files = sorted((f["format"], f["records"]) for f in updates[-1]["files"])
        assert files == [("csv", 2_000), ("json", 2_000)]
    final = await api.call("GET", f"/datasets/{did}", admin, 200)
    assert final["status"] == "completed"

    # a dataset that is already final: sent once, and the stream ends
    ws = await _open(server, admin)
    try:
        assert (await _receive(ws))["type"] == "connection_ack"
        await _subscribe(ws, "again", dataset_id=did)
        message = await _receive(ws)
        assert message["type"] == "next" and _state(message["payload"]["data"]["dataset_updates"]) == \
            ("completed", 1.0, 2_000)
        assert await _receive(ws) == {"id": "again", "type": "complete"}
    finally:
        await ws.close()


async def test_a_socket_without_a_valid_token_is_refused(api: Api, server: str) -> None:
    admin, _, _ = await _setup(api)
    for payload in ({}, {"authorization": "Bearer not-a-token"}, {"authorization": admin.token}):
        ws = await connect(f"ws://{server}/graphql", subprotocols=["graphql-transport-ws"])  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": payload}))
        with pytest.raises(ConnectionClosed) as closed:
            await _receive(ws)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403, payload
    # subscribing before connection_init: 4401 (graphql-transport-ws)
    ws = await connect(f"ws://{server}/graphql", subprotocols=["graphql-transport-ws"])  # type: ignore[list-item]
    await _subscribe(ws, "early", dataset_id=1)
    with pytest.raises(ConnectionClosed) as closed:
        await _receive(ws)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    # a logged-out token no longer opens a socket
    token = await api.token(admin.username, admin.password)
    await api.call("GET", "/users/logout", None, 200, headers={"Authorization": f"Bearer {token}"})
    ws = await connect(f"ws://{server}/graphql", subprotocols=["graphql-transport-ws"])  # type: ignore[list-item]
    await ws.send(json.dumps({"type": "connection_init", "payload": {"authorization": f"Bearer {token}"}}))
    with pytest.raises(ConnectionClosed) as closed:
        await _receive(ws)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403

    # a non-browser client may send the Authorization header instead
    ws = await _open(server, None, headers=admin.headers)
    try:
        assert (await _receive(ws))["type"] == "connection_ack"
    finally:
        await ws.close()
    # over HTTP a subscription is refused, not executed once
    r = await api.client.post("/graphql", json={"query": FOLLOW, "variables": {"dataset_id": 1}}, headers=admin.headers)
    assert r.status_code == 400 and "subscriptions are not allowed" in r.text


async def test_other_tenants_dataset_is_not_found(api: Api, server: str) -> None:
    admin, project_id, schema_id = await _setup(api)
    dataset = await create_dataset(api, admin, project_id, schema_id, 10, params={"deferred": True})
    _, stranger = await api.create_tenant()
    ws = await _open(server, stranger)
    try:
        assert (await _receive(ws))["type"] == "connection_ack"
        streams = (
            ("d", {"dataset_id": dataset["dataset_id"]}, "dataset_not_found"),
            ("p", {"project_id": project_id}, "project_not_found"),
        )
        for op_id, variables, code in streams:
            await _subscribe(ws, op_id, **variables)
            message = await _receive(ws)
            assert message["type"] == "error" and message["id"] == op_id, message
            assert [e["extensions"]["code"] for e in message["payload"]] == [code], message
        # queries and mutations go to POST /graphql, not over the socket
        await _subscribe(ws, "q", query="{ me { id } }")
        message = await _receive(ws)
        assert message["type"] == "error" and message["payload"][0]["extensions"]["code"] == "bad_request"
    finally:
        await ws.close()


async def test_a_deactivated_users_stream_ends_unauthenticated(api: Api, server: str) -> None:
    admin, project_id, schema_id = await _setup(api)
    tester = await api.create_user(admin, "Tester")
    await api.add_member(admin, project_id, tester.id, "view")
    dataset = await create_dataset(api, admin, project_id, schema_id, 10, params={"deferred": True})
    ws = await _open(server, tester, protocol="graphql-transport-ws")
    try:
        assert (await _receive(ws))["type"] == "connection_ack"
        await _subscribe(ws, "p", project_id=project_id)
        first = await _receive(ws)
        assert first["type"] == "next" and _state(first["payload"]["data"]["dataset_updates"]) == ("queued", 0.0, 0)
        assert first["payload"]["data"]["dataset_updates"]["dataset_id"] == dataset["dataset_id"]
        await api.call("PATCH", f"/users/{tester.id}", admin, 200, json={"is_active": False})
        message = await _receive(ws)
        assert message["type"] == "next", message
        assert [e["extensions"]["code"] for e in message["payload"]["errors"]] == ["account_inactive"]
        assert await _receive(ws) == {"id": "p", "type": "complete"}
    finally:
        await ws.close()


async def test_the_older_graphql_ws_protocol(api: Api, server: str) -> None:
    admin, project_id, schema_id = await _setup(api)
    dataset = await create_dataset(api, admin, project_id, schema_id, 10, params={"deferred": True})
    ws = await _open(server, admin, protocol="graphql-ws")
    try:
        assert (await _receive(ws))["type"] == "connection_ack"
        await ws.send(json.dumps({"id": "1", "type": "start",
                                  "payload": {"query": FOLLOW, "variables": {"dataset_id": dataset["dataset_id"]}}}))
        message = await _receive(ws)
        assert message["type"] == "data" and _state(message["payload"]["data"]["dataset_updates"]) == \
            ("queued", 0.0, 0)
    finally:
        await ws.close()
    ws = await _open(server, None, protocol="graphql-ws")
    try:
        assert (await _receive(ws))["type"] == "connection_error"
    finally:
        await ws.close()


async def test_an_unexpected_failure_is_masked(api: Api, server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    admin, project_id, schema_id = await _setup(api)
    await create_dataset(api, admin, project_id, schema_id, 10, params={"deferred": True})
    ws = await _open(server, admin)
    try:
        assert (await _receive(ws))["type"] == "connection_ack"
        await _subscribe(ws, "p", project_id=project_id)
        assert (await _receive(ws))["type"] == "next"

        async def broken(*_: Any, **__: Any) -> None:
            raise RuntimeError("driver text: SELECT secret FROM dataset")

        monkeypatch.setattr(dataset_updates, "poll", broken)
        message = await _receive(ws)
        assert message["type"] == "next", message
        assert message["payload"]["errors"] == [{"message": "Internal server error.",
                                                 "extensions": {"code": "internal", "status": 500,
                                                                "classification": "INTERNAL_ERROR"}}], message
        assert await _receive(ws) == {"id": "p", "type": "complete"}
    finally:
        await ws.close()


async def test_a_scoped_tokens_stream_keeps_to_its_scope(api: Api, server: str) -> None:
    """A stream reads: an API token without `read` gets FORBIDDEN; one limited to another project
    gets NOT_FOUND for this one (issue 28: the scope holds over the WebSocket too)."""
    admin, project_id, schema_id = await _setup(api)
    other = (await api.create_project(admin, "Other"))["project_id"]
    dataset = await create_dataset(api, admin, project_id, schema_id, 10, params={"deferred": True})
    cases = (
        ({"actions": ["generate"]}, "token_scope_forbidden"),
        ({"project_ids": [other], "actions": ["read"]}, "dataset_not_found"),
    )
    for scope, code in cases:
        secret = (await api.call("POST", "/settings/tokens", admin, 201, json={"name": "ci", **scope}))["token"]
        ws = await _open(server, Actor(admin.id, admin.username, admin.password, secret, admin.tenant_id))
        try:
            assert (await _receive(ws))["type"] == "connection_ack"
            await _subscribe(ws, "d", dataset_id=dataset["dataset_id"])
            message = await _receive(ws)
            assert message["type"] == "error" and message["id"] == "d", message
            assert [e["extensions"]["code"] for e in message["payload"]] == [code], (scope, message)
        finally:
            await ws.close()
