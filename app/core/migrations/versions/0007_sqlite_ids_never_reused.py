"""ids never reused on SQLite: every integer key becomes AUTOINCREMENT

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27 20:50:00.000000

Without AUTOINCREMENT SQLite gives the next row max(id) + 1, so once the newest row of a table is
deleted its id goes to the next one, and a client still holding the old id reaches the new row.
SQLite cannot add AUTOINCREMENT to a table in place: each table is rebuilt (batch mode copies the
rows, ids included, into a new table, then swaps the names). Copying the rows leaves the table's
sqlite_sequence at its highest id, so ids continue from there. Foreign keys are off while this
runs (env.py turns them off before the migrations' transaction and checks them after), else
dropping a parent table would delete or refuse its children's rows.

PostgreSQL: nothing to do, its sequences never hand an id out twice.
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# the tables of revision 0006 whose key is one integer column, parents before children
TABLES = (
    "tenant",
    "user_account",
    "api_token",
    "invitation",
    "recovery_code",
    "project",
    "schema_doc",
    "constraint_set",
    "dataset",
    "dataset_shard",
    "dataset_file",
    "notification",
    "integration",
    "webhook_delivery",
    "delivery_attempt",
    "object_export",
    "audit_log",
)


def _rebuild(autoincrement: bool) -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    for table in TABLES:
        with op.batch_alter_table(
            table, recreate="always", table_kwargs={"sqlite_autoincrement": autoincrement}
        ):
            pass


def upgrade() -> None:
    _rebuild(autoincrement=True)


def downgrade() -> None:
    _rebuild(autoincrement=False)
