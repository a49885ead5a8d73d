"""Apply Alembic migrations (at start-up and via `tdg migrate`).

Alembic is imported when a migration runs, not with this module. The server applies its
migrations in a child process (`upgrade_apart`): Alembic and the migration scripts would
otherwise stay in its memory for good (about 10 MB) after a job done once at start-up."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
# the child reads the database URL (it may hold a password) from its stdin, not its command line
_CHILD = "import sys; from app.core.migrate import upgrade; upgrade(sys.stdin.readline().rstrip('\\n'), sys.argv[1])"


class MigrationFailed(RuntimeError):
    """The migrations' child process failed; its error went to the server's standard error."""


def alembic_config(database_url: str) -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return cfg


def upgrade(database_url: str, revision: str = "head") -> None:
    from alembic import command

    command.upgrade(alembic_config(database_url), revision)


def upgrade_apart(database_url: str, revision: str = "head") -> None:
    """`upgrade` in a child process of this interpreter; its output goes where this process's does."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, revision], input=database_url + "\n", text=True, check=False
    )
    if done.returncode != 0:
        raise MigrationFailed(
            f"Applying the database migrations failed (the child process exited with {done.returncode}); "
            "its error is printed above."
        )


def autogenerate(database_url: str, message: str) -> None:
    """Developer helper: write a new revision from the model diff."""
    from alembic import command

    command.revision(alembic_config(database_url), message=message, autogenerate=True)
