"""Alembic environment: one set of migrations for SQLite and PostgreSQL."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

import app.core.tables  # noqa: F401  (registers every table on SQLModel.metadata)
from app.core.database import is_sqlite, make_sync_engine

config = context.config
target_metadata = SQLModel.metadata


def run_migrations_online() -> None:
    url = config.get_main_option("sqlalchemy.url")
    assert url
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection, url)
        return
    engine = make_sync_engine(url)
    with engine.connect() as conn:
        _run(conn, url)
    engine.dispose()


def _run(connection: Connection, url: str) -> None:
    sqlite = is_sqlite(url)
    if sqlite:
        # A batch migration rebuilds a table by copying it and dropping the old one; with foreign
        # keys on, that drop deletes (ON DELETE CASCADE) or refuses the children's rows. SQLite
        # ignores this pragma inside a transaction, so it is set (and committed) before one.
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        connection.commit()
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=sqlite,  # SQLite ALTER TABLE needs batch mode
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()
    if sqlite:
        broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
        connection.exec_driver_sql("PRAGMA foreign_keys=ON")
        connection.commit()
        if broken:
            raise RuntimeError(f"The migrations left rows whose foreign keys point nowhere: {broken[:10]}")


run_migrations_online()
