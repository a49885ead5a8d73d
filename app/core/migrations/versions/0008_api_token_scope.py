"""API tokens limited to some projects and some actions

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27 21:00:00.000000

Two nullable JSON columns: existing tokens keep both NULL, which means unscoped (the full power of
their owner), as before.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("api_token", schema=None) as batch_op:
        batch_op.add_column(sa.Column("scope_project_ids", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("scope_actions", sa.JSON(), nullable=True))


def downgrade() -> None:
    # SQLite drops a column by rebuilding the table, which must stay AUTOINCREMENT (0007)
    with op.batch_alter_table(
        "api_token", schema=None, table_kwargs={"sqlite_autoincrement": True}
    ) as batch_op:
        batch_op.drop_column("scope_actions")
        batch_op.drop_column("scope_project_ids")
