"""Apply Alembic migrations (at start-up and via `tdg migrate`)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).parent / "migrations"


def alembic_config(database_url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return cfg


def upgrade(database_url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(database_url), revision)


def autogenerate(database_url: str, message: str) -> None:
    """Developer helper: write a new revision from the model diff."""
    command.revision(alembic_config(database_url), message=message, autogenerate=True)
