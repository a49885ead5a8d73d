"""Alembic environment: one set of migrations for SQLite and PostgreSQL."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

import app.core.models  # noqa: F401  (registers the tables on SQLModel.metadata)
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
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=is_sqlite(url),  # SQLite ALTER TABLE needs batch mode
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
