"""Load a generated SQL file into real databases: an in-memory SQLite and a scratch PostgreSQL
database created (and dropped) on the test server."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg

from tests.conftest import _pg_admin_dsn


def sqlite_counts(script: str, tables: list[str]) -> dict[str, int]:
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(script)
        return {t: conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    finally:
        conn.close()


@contextmanager
def scratch_pg() -> Iterator[str]:
    """A fresh PostgreSQL database (libpq DSN), dropped afterwards."""
    dsn, _ = _pg_admin_dsn()
    name = f"tdg_sqlload_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield dsn.replace("dbname=postgres", f"dbname={name}")
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def postgres_counts(script: str, tables: list[str]) -> dict[str, int]:
    with scratch_pg() as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        # the file carries its own BEGIN/COMMIT; a simple-protocol multi-statement execute runs it as is
        conn.execute(script.encode(), prepare=False)
        out = {}
        for t in tables:
            row = conn.execute(f'SELECT count(*) FROM "{t}"').fetchone()
            assert row is not None
            out[t] = int(row[0])
        return out
