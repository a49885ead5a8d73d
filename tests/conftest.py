"""Test fixtures: every API test runs against SQLite AND the real PostgreSQL on 127.0.0.1:5432.
The API and dataset tests that store or read files (schemas, avatars, dataset files) also run
once with the files on an S3 server (moto's) and PostgreSQL: see pytest_generate_tests.

PostgreSQL gets a fresh database per test session (dropped at the end); each test starts from
empty tables. SQLite gets a migrated template file copied per test. The app is driven over
ASGI by httpx with real tokens, exactly as a client would."""

from __future__ import annotations

import os
import shutil
import sys
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
from tests.support.s3_server import AWS_ENV, s3_bucket, s3_server, storage, storage_settings  # noqa: F401

# Bytecode is cached (as scripts/test.sh does) even where the environment says not to: each
# process the tests start (tdg serve, pool and probe processes, CLI runs) would otherwise compile
# the ~1,500 modules `tdg serve` imports from source again: it took 11.3 CPU s to answer, 4.6 s cached
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False
# moto's credentials for the whole session: pool and probe processes are forked from a fork server
# (app/core/processes.py) that keeps the environment of its start, which may be before the
# first S3 test (as a deployment sets its credentials before it starts)
os.environ.update(AWS_ENV)

ADMIN_PASSWORD = "root-password-123"
PG_HOST = os.environ.get("TDG_TEST_PG_HOST", "127.0.0.1")
PG_PORT = int(os.environ.get("TDG_TEST_PG_PORT", "5432"))
# argon2id at its cheapest (microseconds, not ~40 ms per hash): the suite logs in thousands of times
CHEAP_PASSWORD_HASHING = {"password_hash_time_cost": 1, "password_hash_memory_kib": 8}
BACKENDS = [b for b in os.environ.get("TDG_TEST_BACKENDS", "sqlite,postgresql").split(",") if b]
# the database of the S3 runs: the one a deployment on several machines has
S3_DATABASE = "postgresql" if "postgresql" in BACKENDS else BACKENDS[0]
# the tests that store or read files: every dataset test, and the API modules that upload schemas
# or avatars or make datasets. A test elsewhere in tests/api or tests/datasets that leaves files
# in the local store fails (`app` below), so a new one cannot be missed
STORING = ("tests/datasets/", *(f"tests/api/test_{name}.py" for name in (
    "analytics", "download_honesty", "download_links", "download_store_frozen", "error_codes", "field_limits",
    "hostile_input", "introspection", "locales_and_ordering", "openapi_constraints", "openapi_statuses",
    "preview", "rest_graphql_parity", "rest_strictness", "rule_shapes", "schema_library", "schema_problems",
    "subscriptions")), "tests/settings/test_retention.py")
GUARDED = ("tests/api/", "tests/datasets/")


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


def _relative(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """(database, storage) of a storing test, pairwise rather than the cross product (the store does
    not depend on the database, nor the database on the store): every other database with the local
    folder and S3_DATABASE with the S3 server, so each database and each store runs every storing
    test; with one database, that database with both stores.
    TDG_TEST_STORAGE=s3 runs everything on S3 instead; a test or module that chooses its database
    or storage itself keeps its choice."""
    if not {"database_url", "storage"} <= set(metafunc.fixturenames) or os.environ.get("TDG_TEST_STORAGE"):
        return
    if not _relative(metafunc.definition.path).startswith(STORING):
        return
    if hasattr(metafunc.module, "storage") or hasattr(metafunc.module, "database_url"):
        return
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0] if mark.args else mark.kwargs.get("argnames", "")
        if {"database_url", "storage"} & set(names.split(",") if isinstance(names, str) else names):
            return
    combos = [(b, "local") for b in BACKENDS if b != S3_DATABASE or len(BACKENDS) == 1] + [(S3_DATABASE, "s3")]
    # a marker, not metafunc.parametrize: the database fixture's own params then stand aside
    metafunc.definition.add_marker(pytest.mark.parametrize(
        ("database_url", "storage"), combos, indirect=["database_url"], ids=[f"{b}-{s}" for b, s in combos]))


@pytest.fixture
async def app(settings: Settings, request: pytest.FixtureRequest) -> AsyncIterator[object]:
    application = create_app(settings, run_migrations=False)
    async with application.router.lifespan_context(application):
        yield application
    _check_stores_only_if_storing(settings, request)


def _check_stores_only_if_storing(settings: Settings, request: pytest.FixtureRequest) -> None:
    """An API or dataset test outside STORING that left files in its local store would never
    run on S3: fail it, naming the list to add it to."""
    path = _relative(request.node.path)
    if settings.storage_url or not path.startswith(GUARDED) or path.startswith(STORING):
        return
    kept = [name for name in ("blobs", "datasets") if (settings.data_dir / name).exists()]
    if kept:
        pytest.fail(f"{path} stores files ({', '.join(kept)}/) but is not in STORING (tests/conftest.py), "
                    "so it never runs with the files on S3")


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


def _uses_module_fixture(item: pytest.Item) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    return info is not None and any(
        defs and defs[-1].scope in ("module", "class") for defs in info.name2fixturedefs.values())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # under xdist (`--dist loadgroup`, scripts/test.sh) the browser tests stay on one worker, so
    # one chromium and one pair of servers serve them all. Likewise a module's tests that share a
    # module fixture (a `tdg serve`, schemathesis' world, generated records): `loadgroup` deals
    # ungrouped tests out one by one, so each worker given one of them built the fixture again
    # (schemathesis' server and world: ~45 s each). xdist hands the largest groups out first.
    browser = REPO / "tests" / "web" / "browser"
    for item in items:
        if browser in item.path.parents:
            item.add_marker(pytest.mark.xdist_group("browser"))
        elif _uses_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(_relative(item.path)))
