"""When every database connection of the process stays in use for the pool's whole timeout
(`TDG_DATABASE_POOL_SIZE`, `TDG_DATABASE_POOL_TIMEOUT_SECONDS`), a request is answered 503 with
Retry-After and a sentence, over REST and GraphQL, never 500; once a connection is free again,
requests are served as before."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from graphql import GraphQLError
from sqlalchemy import text
from sqlalchemy.exc import TimeoutError as PoolTimeout

from app.core.errors import Busy
from app.core.settings import Settings
from app.graphql.errors import domain_error_of
from tests.api_client import Api


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"database_pool_size": 1, "database_pool_timeout_seconds": 0.3})


async def test_a_request_that_gets_no_connection_is_answered_503(app: Any, api: Api) -> None:
    root = api.root
    assert root is not None
    assert (await api.request("GET", "/projects", root)).status_code == 200
    async with app.state.engine.connect() as held:  # the pool's only connection
        await held.execute(text("SELECT 1"))
        r = await api.request("GET", "/projects", root)
        assert r.status_code == 503, r.text
        assert r.headers["Retry-After"] == "1"
        assert r.json()["code"] == "busy" and r.json()["detail"].startswith("The service is busy")
        g = await api.client.post("/graphql", json={"query": "{ me { username } }"}, headers=root.headers)
        assert g.status_code == 503 and g.headers["Retry-After"] == "1", g.text
        (error,) = g.json()["errors"]  # a GraphQL response: what a GraphQL client reads
        assert error["message"].startswith("The service is busy") and error["extensions"]["code"] == "busy"
    assert (await api.request("GET", "/projects", root)).status_code == 200
    # the document says so, with the header
    document = (await api.client.get("/api/v1/openapi.json")).json()
    assert document["paths"]["/projects"]["get"]["responses"]["503"] == {"$ref": "#/components/responses/Unavailable"}
    assert "Retry-After" in document["components"]["responses"]["Unavailable"]["headers"]


async def test_a_slow_request_body_holds_no_connection(api: Api) -> None:
    """The facade reads a body after authenticating the caller: the connection that took goes back
    to the pool meanwhile, so a client trickling its body does not hold it from the others."""
    root = api.root
    assert root is not None
    arrived = asyncio.Event()

    async def trickled() -> AsyncIterator[bytes]:
        yield b'{"name": '
        await arrived.wait()
        yield b'"Slow body"}'

    creating = asyncio.create_task(api.client.post(
        "/api/v1/projects/create", content=trickled(),
        headers={**root.headers, "Content-Type": "application/json"}))
    await asyncio.sleep(0.5)  # the create is waiting for the rest of its body
    assert not creating.done()
    r = await api.request("GET", "/projects", root)
    assert r.status_code == 200, r.text  # the pool's one connection was free
    arrived.set()
    created = await creating
    assert created.status_code == 201 and created.json()["name"] == "Slow body", created.text


def test_a_pool_timeout_in_a_resolver_is_the_busy_error() -> None:
    domain = domain_error_of(GraphQLError("x", original_error=PoolTimeout("QueuePool limit reached")))
    assert isinstance(domain, Busy) and domain.status == 503 and domain.retry_after == 1
