"""Migration 0007 on a SQLite database made at revision 0006 with rows in every table: the rows come
through unchanged (the children of ON DELETE CASCADE keys too), every integer key is AUTOINCREMENT,
its sqlite_sequence stands at the highest id, and a deleted id is not handed out again."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import sqlalchemy as sa

from app.core.migrate import upgrade

ROWS = 3  # ids 1..3 in every table; the last is deleted before migrating, as a client would


def _value(table: str, column: dict[str, object], n: int) -> object:
    kind = str(column["type"])
    if kind in ("INTEGER", "BIGINT"):
        return n  # keys and foreign keys alike: row n of a child points at row n of its parent
    if kind == "FLOAT":
        return n / 2
    if kind == "BOOLEAN":
        return n % 2
    if kind == "DATETIME":
        return f"2026-11-0{n} 10:00:00.000000"
    if kind == "JSON":
        return f'{{"n": {n}}}'
    length = getattr(column["type"], "length", None) or 200
    return f"{column['name']}-{table}-{n}"[-length:]


def _fill(path: Path) -> None:
    engine = sa.create_engine(f"sqlite:///{path}")
    metadata = sa.MetaData()
    metadata.reflect(engine)
    inspector = sa.inspect(engine)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA foreign_keys=ON")
        for table in metadata.sorted_tables:
            if table.name == "alembic_version":
                continue
            columns = inspector.get_columns(table.name)
            names = ", ".join(f'"{c["name"]}"' for c in columns)
            marks = ", ".join("?" for _ in columns)
            for n in range(1, ROWS + 1):
                conn.execute(
                    f'INSERT INTO "{table.name}" ({names}) VALUES ({marks})',
                    [_value(table.name, c, n) for c in columns],
                )
        # the newest row of every table is deleted (children first): its id is the one a table
        # without AUTOINCREMENT would give to the next row
        for table in reversed(metadata.sorted_tables):
            if table.name != "alembic_version":
                conn.execute(
                    f'DELETE FROM "{table.name}" WHERE rowid = (SELECT max(rowid) FROM "{table.name}")'
                )
    engine.dispose()


def _dump(path: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(path) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {
            name: sorted(conn.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)
            for name in names
            if name not in ("alembic_version", "sqlite_sequence")
        }


def _integer_keyed(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        keyed = []
        for name in names:
            keys = [r for r in conn.execute(f'PRAGMA table_info("{name}")') if r[5]]
            if len(keys) == 1 and keys[0][2] == "INTEGER":
                keyed.append(name)
        return keyed


def test_0007_keeps_the_rows_and_never_reuses_an_id(tmp_path: Path) -> None:
    path = tmp_path / "at-0006.db"
    upgrade(f"sqlite:///{path}", "0006")
    _fill(path)
    before = _dump(path)
    keyed = _integer_keyed(path)
    assert len(keyed) == 17 and all(len(rows) == ROWS - 1 for rows in before.values())
    with sqlite3.connect(path) as conn:
        assert "AUTOINCREMENT" not in "".join(
            r[0] for r in conn.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL")
        )

    upgrade(f"sqlite:///{path}", "0007")  # the rows as 0007 leaves them (later revisions add columns)

    assert _dump(path) == before
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        schema = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())
        sequence = dict(conn.execute("SELECT name, seq FROM sqlite_sequence").fetchall())
        assert not [name for name in schema if name.startswith("_alembic")]
        for table in keyed:
            assert "AUTOINCREMENT" in schema[table], table
            assert sequence[table] == ROWS - 1, table
        # the id the deleted row had (3) is not given again, nor is a new row's after its deletion
        conn.execute("PRAGMA foreign_keys=ON")
        first = conn.execute(
            "INSERT INTO tenant (name, is_active, max_record_count, max_concurrent_generations, "
            "created_at, updated_at) VALUES ('t-new', 1, 1, 1, '2026-11-27', '2026-11-27')"
        ).lastrowid
        assert first == ROWS
        conn.execute("DELETE FROM tenant WHERE id = ?", (first,))
        second = conn.execute(
            "INSERT INTO tenant (name, is_active, max_record_count, max_concurrent_generations, "
            "created_at, updated_at) VALUES ('t-newer', 1, 1, 1, '2026-11-27', '2026-11-27')"
        ).lastrowid
        assert second == ROWS + 1


def test_0007_down_and_up_again(tmp_path: Path) -> None:
    """The downgrade rebuilds the tables without AUTOINCREMENT, rows kept; upgrading again works."""
    from alembic import command

    from app.core.migrate import alembic_config

    path = tmp_path / "down.db"
    upgrade(f"sqlite:///{path}", "0006")
    _fill(path)
    before = _dump(path)
    upgrade(f"sqlite:///{path}", "0007")
    command.downgrade(alembic_config(f"sqlite:///{path}"), "0006")
    assert _dump(path) == before
    with sqlite3.connect(path) as conn:
        assert "AUTOINCREMENT" not in "".join(
            r[0] for r in conn.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL")
        )
    upgrade(f"sqlite:///{path}", "0007")
    assert _dump(path) == before
