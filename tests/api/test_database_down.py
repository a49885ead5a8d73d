"""When the database cannot be reached (connections refused, terminated or reset; SQLite's file
cannot be opened), a request is answered 503 with Retry-After and a sentence, over REST and
GraphQL, never 500 or a dropped connection; once the database is back the same app serves again,
with no restart (the pool checks a connection before lending it).

PostgreSQL here is a database of the test's own, reached through a TCP relay the test controls
(tests/support/tcp_proxy.py): closing the relay is a database host gone (connections reset, new
ones refused); ALLOW_CONNECTIONS false with pg_terminate_backend is a database closed by its
administrator."""

from __future__ import annotations

import asyncio
import shutil
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
from fastapi import FastAPI
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from app.core.database import make_async_engine, pg_connect_args, unreachable
from app.core.migrate import upgrade
from app.core.settings import Settings
from tests.api_client import Api
from tests.conftest import PG_HOST, PG_PORT, _pg_admin_dsn, scratch_pg_database
from tests.support.ports import free_port
from tests.support.tcp_proxy import TcpProxy

UNAVAILABLE = "The database cannot be reached right now; retry in a moment."
PROJECTS = "{ projects(limit: 5, offset: 0) { total } }"


@pytest.fixture(scope="module")
def own_pg() -> Iterator[str]:
    """A migrated PostgreSQL database of this module's own (others' tests never see it refuse)."""
    with scratch_pg_database("tdg_down") as url:
        upgrade(url)
        yield url


@pytest.fixture
def proxy() -> Iterator[TcpProxy]:
    relay = TcpProxy(free_port(), (PG_HOST, PG_PORT))
    relay.accept()
    yield relay
    relay.refuse()


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """PostgreSQL through the relay (the default), or (param "sqlite") a migrated SQLite file in a
    folder of its own, which the test can take away."""
    if getattr(request, "param", "postgresql") == "sqlite":
        url = f"sqlite:///{tmp_path / 'db' / 'tdg.db'}"
        upgrade(url)
        return url
    url: str = request.getfixturevalue("own_pg")
    relay: TcpProxy = request.getfixturevalue("proxy")
    with psycopg.connect(_pg_admin_dsn()[0].replace("dbname=postgres", f"dbname={_name(url)}")) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'alembic_version'")]
        conn.execute("TRUNCATE " + ", ".join(f'"{t}"' for t in tables) + " RESTART IDENTITY CASCADE")
    return url.replace(f"{PG_HOST}:{PG_PORT}", f"{relay.address[0]}:{relay.port}")


def _name(url: str) -> str:
    return url.rsplit("/", 1)[1]


def _admin(statement: str) -> None:
    with psycopg.connect(_pg_admin_dsn()[0], autocommit=True) as conn:
        conn.execute(statement)  # type: ignore[arg-type]  (test-made names, not input)


async def _assert_unavailable(api: Api) -> None:
    """REST and GraphQL both say 503, with Retry-After and the sentence."""
    root = api.root
    assert root is not None
    r = await api.request("GET", "/projects", root)
    assert r.status_code == 503, r.text
    assert int(r.headers["Retry-After"]) > 0
    assert r.json() == {"detail": UNAVAILABLE, "code": "database_unavailable"}
    g = await api.client.post("/graphql", json={"query": PROJECTS}, headers=root.headers)
    assert g.status_code == 503, g.text
    assert int(g.headers["Retry-After"]) > 0
    error = g.json()["errors"][0]
    assert error["message"] == UNAVAILABLE and error["extensions"]["code"] == "database_unavailable", error


async def _assert_served(api: Api) -> None:
    root = api.root
    assert root is not None
    r = await api.request("GET", "/projects", root)
    assert r.status_code == 200, r.text
    g = await api.client.post("/graphql", json={"query": PROJECTS}, headers=root.headers)
    assert g.status_code == 200 and g.json()["data"]["projects"]["total"] == 0, g.text


async def test_a_database_host_gone_is_503_until_it_is_back(api: Api, proxy: TcpProxy) -> None:
    await _assert_served(api)
    proxy.refuse()  # the pool's connections are reset, new ones refused
    for _ in range(2):  # and again: the first failure left nothing broken behind
        await _assert_unavailable(api)
    token = await api.client.post("/api/v1/users/token", data={"username": "root", "password": "x" * 12})
    assert token.status_code == 503, token.text
    proxy.accept()
    await _assert_served(api)


async def test_a_database_closed_by_its_administrator_is_503_until_it_opens(api: Api, settings: Settings) -> None:
    name = _name(settings.database_url)
    await _assert_served(api)
    _admin(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
    try:
        _admin(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
        await _assert_unavailable(api)
    finally:
        _admin(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
    await _assert_served(api)


async def test_a_connection_terminated_during_a_request_is_503(api: Api, settings: Settings) -> None:
    """/graphql authenticates the caller (its session holds a connection), then reads the body:
    the connection is terminated while the body is on its way."""
    name = _name(settings.database_url)
    root = api.root
    assert root is not None
    arrived = asyncio.Event()

    async def trickled() -> AsyncIterator[bytes]:
        yield b'{"query": '
        await arrived.wait()
        yield b'"' + PROJECTS.encode() + b'"}'

    asking = asyncio.create_task(api.client.post(
        "/graphql", content=trickled(), headers={**root.headers, "Content-Type": "application/json"}))
    await asyncio.sleep(0.5)
    assert not asking.done()
    _admin(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
    arrived.set()
    g = await asking
    assert g.status_code in (200, 503), g.text  # a resolver's error, or the commit's
    error = g.json()["errors"][0]
    assert error["message"] == UNAVAILABLE and error["extensions"]["code"] == "database_unavailable", error
    assert error["extensions"]["retry_after"] > 0
    await _assert_served(api)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_an_sqlite_file_that_cannot_be_opened_is_503_until_it_can(
    app: FastAPI, api: Api, database_url: str
) -> None:
    await _assert_served(api)
    folder = Path(database_url.removeprefix("sqlite:///")).parent
    shutil.move(folder, folder.with_name("away"))  # a volume unmounted
    try:
        await app.state.engine.dispose()  # the open connections hold the old file
        await _assert_unavailable(api)
    finally:
        shutil.move(folder.with_name("away"), folder)
    await _assert_served(api)


async def test_only_an_unreachable_database_is_unavailable(own_pg: str, tmp_path: Path) -> None:
    """The classification on real errors: a statement's own fault stays a 500 (masked)."""
    engine = make_async_engine(own_pg, pool_size=1)
    try:
        async with engine.connect() as conn:
            with pytest.raises(DBAPIError) as wrong:
                await conn.execute(text("SELEC 1"))
            assert not unreachable(wrong.value)
        async with engine.connect() as conn:
            pid = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
            _admin(f"SELECT pg_terminate_backend({int(pid)})")
            with pytest.raises(DBAPIError) as terminated:
                await conn.execute(text("SELECT 1"))
            assert unreachable(terminated.value)
    finally:
        await engine.dispose()
    missing = create_engine(f"sqlite:///{tmp_path / 'no-such-folder' / 'tdg.db'}")
    with pytest.raises(DBAPIError) as cannot_open:
        missing.connect()
    assert unreachable(cannot_open.value)
    with create_engine("sqlite://").connect() as conn:
        with pytest.raises(DBAPIError) as no_table:
            conn.execute(text("SELECT * FROM nowhere"))
        assert not unreachable(no_table.value)


def test_the_relay_refuses_when_closed(proxy: TcpProxy) -> None:
    """The relay itself: a test that relied on a relay that never refused could not fail."""
    proxy.refuse()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://{proxy.address[0]}:{proxy.port}/", timeout=2)


async def test_a_host_that_never_answers_is_unreachable_after_the_connect_timeout(own_pg: str) -> None:
    """A host that takes the TCP connection and then says nothing (a frozen server): libpq gives
    up after connect_timeout and the error is classed unreachable (503), instead of a request held
    until its client gives up (TimeoutError here). A connect_timeout in the URL wins."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    port = silent.getsockname()[1]
    url = make_url(own_pg).set(host="127.0.0.1", port=port)
    given = url.update_query_dict({"connect_timeout": "2"}).render_as_string(hide_password=False)
    assert "connect_timeout" not in pg_connect_args(given) and pg_connect_args(given)["keepalives"] == 1
    # the default (10 s), not the URL's: without it the connection waits for the asyncio timeout
    engine = make_async_engine(url.render_as_string(hide_password=False), pool_size=1)
    try:
        with pytest.raises(DBAPIError) as silent_host:
            async with asyncio.timeout(30):
                async with engine.connect() as conn:
                    await conn.execute(text("SELECT 1"))
        assert unreachable(silent_host.value)
    finally:
        await engine.dispose()
        silent.close()
