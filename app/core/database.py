"""Engines and sessions for SQLite (embedded default) and PostgreSQL (psycopg 3)."""

from __future__ import annotations

import collections
import itertools
import sqlite3
from pathlib import Path
from typing import Any

import aiosqlite
import psycopg
from sqlalchemy import event
from sqlalchemy.connectors.asyncio import AsyncAdapt_dbapi_connection
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_cursor,
    AsyncAdapt_aiosqlite_dbapi,
)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry
from sqlalchemy.util import EMPTY_DICT
from sqlalchemy.util.concurrency import await_
from sqlmodel import create_engine
from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.lru import BoundedLRU


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


# PostgreSQL's SQLSTATEs of a database that is not there for this connection: class 08
# (connection exception), 57P01-57P03 (terminated by an administrator, crash, starting up or
# shutting down), 53300 (too many connections), 55000 at connect (ALLOW_CONNECTIONS false);
# a psycopg OperationalError without a SQLSTATE is the client's own (refused, reset, closed)
_PG_UNREACHABLE = ("08", "57P01", "57P02", "57P03", "53300")
# SQLite's primary result codes of a file that cannot be opened or read (a volume gone, an I/O
# error) or stays locked past busy_timeout
_SQLITE_UNREACHABLE = {sqlite3.SQLITE_BUSY, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN}


def unreachable(exc: BaseException) -> bool:
    """Whether `exc` says the database cannot be used right now (refused, terminated or reset
    connection; SQLite's file cannot be opened or read), not that the statement is wrong: the
    API answers it 503 (errors.DatabaseUnavailable), not 500."""
    if not isinstance(exc, DBAPIError):
        return False
    if exc.connection_invalidated:
        return True  # sqlalchemy's dialect recognised a disconnect and dropped the connection
    original = exc.orig
    if isinstance(original, psycopg.OperationalError | psycopg.InterfaceError):
        state = original.sqlstate
        if state is None or state.startswith(_PG_UNREACHABLE):
            return True
        return state == "55000" and "not currently accepting connections" in str(original)
    if isinstance(original, sqlite3.OperationalError):
        return original.sqlite_errorcode & 0xFF in _SQLITE_UNREACHABLE
    return False


# libpq's own limits for a PostgreSQL host that stops answering: a connection attempt that gets no
# reply gives up after connect_timeout (the request is answered 503 database_unavailable, not held
# until the client gives up), and TCP keepalives find a connection whose host went away without a
# reset in about a minute. A parameter given in the database URL's query wins.
PG_CONNECT_ARGS: dict[str, int] = {
    "connect_timeout": 10, "keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10, "keepalives_count": 3,
}


def pg_connect_args(url: str) -> dict[str, int]:
    given = make_url(url).query
    return {name: value for name, value in PG_CONNECT_ARGS.items() if name not in given}


def make_sync_engine(url: str) -> Engine:
    if is_sqlite(url):
        engine = create_engine(_normalise(url, async_=False))
    else:
        engine = create_engine(_normalise(url, async_=False), pool_pre_ping=True, connect_args=pg_connect_args(url))
    if is_sqlite(url):
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


_Description = tuple[tuple[Any, ...], ...] | None


def _run_statement(
    connection: sqlite3.Connection, operation: str, parameters: Any, many: bool
) -> tuple[_Description, list[Any], int, int | None]:
    """One statement on aiosqlite's thread, start to finish: cursor, execute, rows, close."""
    cursor = connection.cursor()
    try:
        if many:
            cursor.executemany(operation, parameters)
        elif parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else []
        return description, rows, cursor.rowcount, cursor.lastrowid
    finally:
        cursor.close()


# A SELECT runs on the event loop's own thread when it is quick: a statement of the request path
# (a row by key, a page of 50) takes ~0.1 ms in SQLite, less than the hand-off to aiosqlite's
# thread and back (a queue, a thread wake-up, the GIL passed twice, the loop woken). Under 50
# clients the 15 connection threads also kept taking the GIL from the loop. "Quick" is enforced,
# not guessed: SQLite's progress handler stops an inline statement after about
# INLINE_MAX_STEPS virtual-machine steps (~1 ms), and the statement then runs on the thread as
# before, that time and, remembered, every time after. A stopped SELECT has written nothing.
# Writes always go to the thread: one may wait for another process's write lock (busy_timeout).
INLINE_MAX_STEPS = 100_000
_PROGRESS_EVERY = 1_000  # steps between the handler's calls (each a Python call)
_too_long: BoundedLRU[str, bool] = BoundedLRU(1024)


def _run_inline(
    connection: sqlite3.Connection, operation: str, parameters: Any
) -> tuple[_Description, list[Any], int, int | None] | None:
    """`_run_statement` on the calling thread, or None if it was stopped for running long.
    SQLite counts a prepared statement's steps over all its runs (the statement cache reuses
    it), so the handler counts its own calls, from this run's first one."""
    calls = itertools.count()
    limit = INLINE_MAX_STEPS // _PROGRESS_EVERY
    connection.set_progress_handler(lambda: next(calls) >= limit, _PROGRESS_EVERY)
    try:
        return _run_statement(connection, operation, parameters, False)
    except sqlite3.OperationalError as exc:
        if str(exc) != "interrupted":
            raise
        _too_long.put(operation, True)
        return None
    finally:
        connection.set_progress_handler(None, 0)


async def _nothing() -> None:
    return None


class _OneHopCursor(AsyncAdapt_aiosqlite_cursor):
    """SQLAlchemy's aiosqlite cursor makes four trips to aiosqlite's thread per statement
    (create the cursor, execute, fetch the rows, close), each a queue hand-off and a wake-up of
    the event loop; this one makes one. Results are buffered as before."""

    __slots__ = ("_description", "_lastrowid", "_rowcount")

    def __init__(self, adapt_connection: AsyncAdapt_dbapi_connection) -> None:
        self._adapt_connection = adapt_connection
        self._connection = adapt_connection._connection
        self._soft_closed_memoized = EMPTY_DICT
        self._rows = collections.deque()
        self._description: _Description = None
        self._rowcount = -1
        self._lastrowid: int | None = None

    @property
    def description(self) -> Any:
        return self._description

    @property
    def rowcount(self) -> int:
        return self._rowcount

    @property
    def lastrowid(self) -> Any:
        return self._lastrowid

    @property
    def arraysize(self) -> int:
        return 1

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        pass

    def execute(self, operation: Any, parameters: Any = None) -> Any:
        try:
            if (
                operation.startswith("SELECT")
                and not self._adapt_connection._execute_mutex.locked()
                and _too_long.get(operation) is None
            ):
                result = _run_inline(self._connection._conn, operation, parameters)
                if result is not None:
                    self._take(*result)
                    # AsyncConnection.execute insists that the call awaited something: a
                    # coroutine that returns at once (a greenlet switch, the loop is not entered)
                    return await_(_nothing())
            return await_(self._run(operation, parameters, many=False))
        except Exception as error:
            self._adapt_connection._handle_exception(error)

    def executemany(self, operation: Any, seq_of_parameters: Any) -> Any:
        try:
            return await_(self._run(operation, seq_of_parameters, many=True))
        except Exception as error:
            self._adapt_connection._handle_exception(error)

    async def _run(self, operation: Any, parameters: Any, *, many: bool) -> None:
        connection: Any = self._connection  # an aiosqlite.Connection
        async with self._adapt_connection._execute_mutex:
            result = await connection._execute(_run_statement, connection._conn, operation, parameters, many)
        self._take(*result)

    def _take(self, description: _Description, rows: list[Any], rowcount: int, lastrowid: int | None) -> None:
        self._description, self._rowcount, self._lastrowid = description, rowcount, lastrowid
        self._rows = collections.deque(rows)

    async def _async_soft_close(self) -> None:
        return None  # nothing open on the other side: the statement's cursor closed with it

    def close(self) -> None:
        self._rows.clear()


class _OneHopConnection(AsyncAdapt_aiosqlite_connection):
    """Also skips the trip for a commit or rollback with no transaction open (sqlite3 opens one
    before the first write only): for a read-only request, the session's commit and the pool's
    rollback on return are no-ops in sqlite3, and were two more hand-offs."""

    __slots__ = ()
    _cursor_cls = _OneHopCursor

    def _idle(self) -> bool:
        connection: sqlite3.Connection | None = self._connection._connection
        return connection is not None and not connection.in_transaction

    def commit(self) -> None:
        if not self._idle():
            super().commit()

    def rollback(self) -> None:
        if not self._idle():
            super().rollback()


class _OneHopDBAPI(AsyncAdapt_aiosqlite_dbapi):
    """SQLAlchemy's aiosqlite DBAPI adapter, handing out connections with one-hop cursors."""

    def connect(self, *arg: Any, **kw: Any) -> AsyncAdapt_aiosqlite_connection:
        adapted = super().connect(*arg, **kw)
        return _OneHopConnection(self, adapted._connection)


POOL_SIZE = 15  # Settings.database_pool_size's default
POOL_TIMEOUT = 30.0  # Settings.database_pool_timeout_seconds's default


def make_async_engine(url: str, pool_size: int = POOL_SIZE, pool_timeout: float = POOL_TIMEOUT) -> AsyncEngine:
    """The request-serving engine: `pool_size` connections, no overflow. With overflow, the
    connections past the pool's size were closed as soon as they were given back and opened anew
    at the next peak: under 50 clients, one new connection every 17 requests (on SQLite a thread
    started and joined, on PostgreSQL a server process forked). A request that waits `pool_timeout`
    seconds for a connection gets sqlalchemy's TimeoutError: the API answers it 503 (errors.Busy)."""
    kwargs: dict[str, object] = {"pool_size": pool_size, "max_overflow": 0, "pool_timeout": pool_timeout}
    if is_sqlite(url):
        # the loop's thread runs quick SELECTs itself (see INLINE_MAX_STEPS), never at the same
        # time as the connection's own thread: its statements are awaited one at a time
        kwargs.update(module=_OneHopDBAPI(aiosqlite, sqlite3), connect_args={"check_same_thread": False})
    else:
        kwargs.update(pool_pre_ping=True, connect_args=pg_connect_args(url))
    engine = create_async_engine(_normalise(url, async_=True), **kwargs)
    if is_sqlite(url):
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
    return engine


def make_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, class_=AsyncSession, expire_on_commit=False)
