"""SQLite statements of the request engine (app/core/database.py): a quick SELECT runs on the
event loop's own thread; one that runs long is stopped there, runs on the connection's thread
instead and goes there from then on; writes always go to the connection's thread. Each
statement reports the thread that ran it through an SQL function of the test's."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from sqlalchemy import event, text

from app.core import database
from app.core.database import make_async_engine

# ~5 million virtual-machine steps: far past INLINE_MAX_STEPS, well under a second
LONG = ("SELECT count(*), max(ran_on()) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
        "SELECT x + 1 FROM c WHERE x < 500000) SELECT x FROM c)")


# a few thousand steps a run: a thousand runs add up to many times INLINE_MAX_STEPS
SHORT = ("SELECT ran_on(), :i, (SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
         "SELECT x + 1 FROM c WHERE x < 200) SELECT x FROM c))")


def _engine(tmp_path: Path) -> tuple[Any, list[int]]:
    engine = make_async_engine(f"sqlite:///{tmp_path / 'inline.db'}")
    ran_on: list[int] = []

    def register(dbapi_connection: Any, _record: Any) -> None:
        # SQLAlchemy's adapter around aiosqlite's connection around sqlite3's
        raw = dbapi_connection._connection._conn

        def record() -> int:
            ran_on.append(threading.get_ident())
            return threading.get_ident()

        raw.create_function("ran_on", 0, record)  # the engine's connections may be used from any thread

    event.listen(engine.sync_engine, "connect", register)
    return engine, ran_on


async def test_quick_selects_run_on_the_loop_thread_writes_and_long_ones_do_not(tmp_path: Path) -> None:
    engine, ran_on = _engine(tmp_path)
    loop_thread = threading.get_ident()
    try:
        async with engine.connect() as db:
            await db.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, who INTEGER)"))
            await db.execute(text("INSERT INTO t (who) VALUES (ran_on())"))
            await db.commit()
            (writer,) = (await db.execute(text("SELECT who FROM t"))).scalars().all()
            assert writer != loop_thread  # the INSERT ran on the connection's thread

            # the same cheap statement many times: SQLite counts a cached statement's steps over
            # all its runs, so a handler that did not count per run would stop a run sooner or later
            ran_on.clear()
            for i in range(1000):
                row = (await db.execute(text(SHORT), {"i": i})).one()
                assert row[1:] == (i, 200)
            assert set(ran_on) == {loop_thread}

            ran_on.clear()
            count, who = (await db.execute(text(LONG))).one()
            assert count == 500000 and who != loop_thread
            assert database._too_long.get(LONG) is True
            ran_on.clear()
            count, who = (await db.execute(text(LONG))).one()
            assert count == 500000 and set(ran_on) == {who} and who != loop_thread
    finally:
        await engine.dispose()


async def test_an_error_in_an_inline_select_is_the_usual_error(tmp_path: Path) -> None:
    engine, _ = _engine(tmp_path)
    try:
        async with engine.connect() as db:
            try:
                await db.execute(text("SELECT * FROM no_such_table"))
            except Exception as exc:  # the DBAPI error wrapped by SQLAlchemy, as for any statement
                assert "no such table" in str(exc)
                assert type(exc).__name__ == "OperationalError"
            else:
                raise AssertionError("a missing table did not raise")
    finally:
        await engine.dispose()
