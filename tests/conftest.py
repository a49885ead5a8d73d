"""Test fixtures: every API test runs against SQLite AND the real PostgreSQL on 127.0.0.1:5432.

PostgreSQL gets a fresh database per test session (dropped at the end); each test starts from
empty tables. SQLite gets a migrated template file copied per test. The app is driven over
ASGI by httpx with real tokens, exactly as a client would."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import httpx
import psycopg
import pytest
import time_machine
from sqlalchemy import text

from app.core.database import make_sync_engine
from app.core.migrate import upgrade
from app.core.settings import Settings
from app.main import create_app
from tests.api_client import Api
from tests.paths import REPO
from tests.support.s3_server import s3_bucket, s3_server, storage, storage_settings  # noqa: F401 (fixtures)

ADMIN_PASSWORD = "root-password-123"
PG_HOST = os.environ.get("TDG_TEST_PG_HOST", "127.0.0.1")
PG_PORT = int(os.environ.get("TDG_TEST_PG_PORT", "5432"))
# argon2id at its cheapest (microseconds, not ~40 ms per hash): the suite logs in thousands of times
CHEAP_PASSWORD_HASHING = {"password_hash_time_cost": 1, "password_hash_memory_kib": 8}
BACKENDS = [b for b in os.environ.get("TDG_TEST_BACKENDS", "sqlite,postgresql").split(",") if b]


def _pg_admin_dsn() -> tuple[str, str]:
    """A DSN that can create databases: user postgres, else root (trust auth)."""
    last: Exception | None = None
    for user in ("postgres", "root"):
        dsn = f"host={PG_HOST} port={PG_PORT} user={user} dbname=postgres"
        try:
            with psycopg.connect(dsn, connect_timeout=5):
                return dsn, user
        except psycopg.OperationalError as exc:
            last = exc
    raise RuntimeError(f"PostgreSQL is not reachable on {PG_HOST}:{PG_PORT}: {last}")


@contextmanager
def scratch_pg_database(prefix: str) -> Iterator[str]:
    """A new, empty PostgreSQL database (its SQLAlchemy URL), dropped afterwards."""
    dsn, user = _pg_admin_dsn()
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg://{user}@{PG_HOST}:{PG_PORT}/{name}"
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    with scratch_pg_database("tdg_test") as url:
        upgrade(url)
        yield url


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "template.db"
    upgrade(f"sqlite:///{path}")
    return path


def _truncate_pg(url: str) -> None:
    engine = make_sync_engine(url)
    with engine.begin() as conn:
        tables = [r[0] for r in conn.execute(text(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'alembic_version'"))]
        if tables:
            conn.execute(text("TRUNCATE " + ", ".join(f'"{t}"' for t in tables) + " RESTART IDENTITY CASCADE"))
    engine.dispose()


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        template = request.getfixturevalue("sqlite_template")
        target = tmp_path / "tdg.db"
        shutil.copy(template, target)
        return f"sqlite:///{target}"
    url = request.getfixturevalue("pg_database")
    _truncate_pg(url)
    return url


@pytest.fixture
def clock() -> Iterator[time_machine.Traveller]:
    """The process's wall clock, ticking on from now; `clock.shift(seconds)` moves it forward so
    a test of expiry (tokens, lockouts, retries, retention) need not sleep. Every time.time() and
    datetime.now() in the process follows it (the app's background threads too); monotonic
    clocks, and so asyncio's timers, do not."""
    with time_machine.travel(datetime.now(UTC), tick=True) as traveller:
        yield traveller


@pytest.fixture
def settings(database_url: str, tmp_path: Path, storage_settings: dict[str, object]) -> Settings:  # noqa: F811
    # storage_settings: the local folder unless a module parametrizes `storage` (tests/support/s3_server.py)
    return Settings(
        env="test", database_url=database_url, data_dir=tmp_path / "data", admin_username="root",
        admin_password=ADMIN_PASSWORD, secret_key="test-secret-key-" + "x" * 32, workers=1, warm_pool=False,
        **CHEAP_PASSWORD_HASHING, **storage_settings,
    )


@pytest.fixture
async def app(settings: Settings) -> AsyncIterator[object]:
    application = create_app(settings, run_migrations=False)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
async def client(app: object) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
        yield c


@pytest.fixture
async def api(client: httpx.AsyncClient) -> Api:
    api = Api(client)
    await api.login_as_root(ADMIN_PASSWORD)
    return api


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # under xdist (`--dist loadgroup`, scripts/test.sh) the browser tests stay on one worker, so
    # one chromium and one pair of servers serve them all
    browser = REPO / "tests" / "web" / "browser"
    for item in items:
        if browser in item.path.parents:
            item.add_marker(pytest.mark.xdist_group("browser"))
