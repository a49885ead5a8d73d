"""Engines and sessions for SQLite (embedded default) and PostgreSQL (psycopg 3)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry
from sqlmodel import create_engine
from sqlmodel.ext.asyncio.session import AsyncSession


def _normalise(url: str, *, async_: bool) -> str:
    u = make_url(url)
    backend = u.get_backend_name()
    if backend == "sqlite":
        if u.database and u.database != ":memory:":
            Path(u.database).parent.mkdir(parents=True, exist_ok=True)
        u = u.set(drivername="sqlite+aiosqlite" if async_ else "sqlite")
    elif backend == "postgresql":
        u = u.set(drivername="postgresql+psycopg")
    return u.render_as_string(hide_password=False)


def _sqlite_pragmas(dbapi_conn: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    # WAL lets readers proceed while a generation job writes progress; busy_timeout turns
    # writer contention into short waits instead of "database is locked" errors.
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def make_sync_engine(url: str) -> Engine:
    engine = create_engine(_normalise(url, async_=False), pool_pre_ping=not is_sqlite(url))
    if is_sqlite(url):
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def make_async_engine(url: str) -> AsyncEngine:
    kwargs: dict[str, object] = {}
    if not is_sqlite(url):
        kwargs.update(pool_pre_ping=True, pool_size=10, max_overflow=20)
    engine = create_async_engine(_normalise(url, async_=True), **kwargs)
    if is_sqlite(url):
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


def make_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False)
