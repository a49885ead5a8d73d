"""SQL output of a nested schema loads into real SQLite and real PostgreSQL with foreign keys
intact and row counts matching; every value and identifier survives quoting."""

from __future__ import annotations

import io
import os
import sqlite3
import uuid
from decimal import Decimal

import orjson
import psycopg
import pytest

from app.generation.model import FieldTree, Kind, Node
from app.generation.plan import compile_plan

PG_DSN = os.environ.get("TDG_TEST_PG_DSN", "host=127.0.0.1 port=5432 user=postgres dbname=test")
N = 1300  # more than two INSERT batches


def nested_tree() -> FieldTree:
    """Orders with a nested address, line items that have their own list of discounts, tricky text."""
    discount = Node(Kind.OBJECT, name="discounts", path="items.discounts", children=[
        Node(Kind.STRING, name="code", path="items.discounts.code", patterns=[r"^[A-Z]{4}$"]),
        Node(Kind.NUMBER, name="pct", path="items.discounts.pct", minimum=Decimal(0), maximum=Decimal(50),
             multiple_of=Decimal("0.5")),
    ])
    item = Node(Kind.OBJECT, name="items", path="items", children=[
        Node(Kind.STRING, name="sku", path="items.sku", patterns=[r"^[A-Z]{3}-\d{3}$"]),
        Node(Kind.INTEGER, name="qty", path="items.qty", minimum=1, maximum=9),
        Node(Kind.ARRAY, name="discounts", path="items.discounts", min_items=0, max_items=2, items=discount),
    ])
    return FieldTree(Node(Kind.OBJECT, name="order", children=[
        Node(Kind.INTEGER, name="id", path="id", minimum=1),
        Node(Kind.STRING, name="note", path="note", patterns=[r"^[a-z'\"\\;`, -]{5,20}$"], nullable=True),
        Node(Kind.BOOLEAN, name="paid", path="paid"),
        Node(Kind.DATE, name="placed_on", path="placed_on"),
        Node(Kind.DATETIME, name="created_at", path="created_at"),
        Node(Kind.ARRAY, name="tags", path="tags", max_items=3, items=Node(Kind.STRING, name="tags", path="tags",
                                                                         max_length=8)),
        Node(Kind.OBJECT, name="address", path="address", required=False, children=[
            Node(Kind.STRING, name="city", path="address.city"),
            Node(Kind.STRING, name="zip", path="address.zip", patterns=[r"^\d{5}$"]),
        ]),
        Node(Kind.ARRAY, name="items", path="items", min_items=1, max_items=4, items=item),
    ]), root_name="order")


def sql_and_records(dialect: str, table: str) -> tuple[str, list[dict]]:
    plan = compile_plan(nested_tree(), [], {"seed": 5, "sql_dialect": dialect, "table_name": table},
                        record_count=N)
    sql, js = io.BytesIO(), io.BytesIO()
    plan.write("sql", sql)
    plan.write("json", js)
    return sql.getvalue().decode(), orjson.loads(js.getvalue())


def expected_counts(records: list[dict]) -> tuple[int, int, int]:
    items = [i for r in records for i in r["items"]]
    return len(records), len(items), sum(len(i["discounts"]) for i in items)


def test_sqlite_loads_with_foreign_keys() -> None:
    table = "orders"
    sql, records = sql_and_records("sqlite", table)
    db = sqlite3.connect(":memory:")
    db.execute("PRAGMA foreign_keys = ON")
    db.executescript(sql)
    counts = tuple(db.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]
                   for t in (table, f"{table}__items", f"{table}__items__discounts"))
    assert counts == expected_counts(records)
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    # values survive quoting exactly
    notes = [r[0] for r in db.execute(f'SELECT "note" FROM "{table}" ORDER BY "_row_id"')]
    assert notes == [r["note"] for r in records]
    cities = [r[0] for r in db.execute(f'SELECT "address.city" FROM "{table}" ORDER BY "_row_id"')]
    assert cities == [r.get("address", {}).get("city") for r in records]
    skus = [r[0] for r in db.execute(f'SELECT "sku" FROM "{table}__items" ORDER BY "_row_id"')]
    assert skus == [i["sku"] for r in records for i in r["items"]]


@pytest.fixture
def pg_schema() -> str:
    name = "tdg_gen_" + uuid.uuid4().hex[:10]
    try:
        conn = psycopg.connect(PG_DSN, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.skip(f"PostgreSQL not reachable: {exc}")
    with conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
        try:
            yield name
        finally:
            conn.execute(f'DROP SCHEMA "{name}" CASCADE')


def test_postgresql_loads_with_foreign_keys(pg_schema: str) -> None:
    table = 'ord"ers'  # an identifier that needs quoting
    sql, records = sql_and_records("postgresql", table)
    q = table.replace('"', '""')
    with psycopg.connect(PG_DSN, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{pg_schema}"')
        conn.execute(sql)
        counts = tuple(conn.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0]  # type: ignore[index]
                       for t in (q, f"{q}__items", f"{q}__items__discounts"))
        assert counts == expected_counts(records)
        fks = conn.execute(
            "SELECT COUNT(*) FROM information_schema.table_constraints WHERE constraint_type = 'FOREIGN KEY' "
            "AND table_schema = %s", (pg_schema,)).fetchone()
        assert fks == (2,)
        notes = [r[0] for r in conn.execute(f'SELECT "note" FROM "{q}" ORDER BY "_row_id"')]
        assert notes == [r["note"] for r in records]
        pcts = [r[0] for r in conn.execute(f'SELECT "pct" FROM "{q}__items__discounts" ORDER BY "_row_id"')]
        assert pcts == [Decimal(str(d["pct"])) for r in records for i in r["items"] for d in i["discounts"]]
        dates = [str(r[0]) for r in conn.execute(f'SELECT "placed_on" FROM "{q}" ORDER BY "_row_id"')]
        assert dates == [r["placed_on"] for r in records]


def test_mysql_quoting_doubles_backslashes_and_uses_backticks() -> None:
    sql, _ = sql_and_records("mysql", "orders")
    assert "CREATE TABLE `orders__items`" in sql and "START TRANSACTION;" in sql
    from app.generation.writers.sql import SqlWriter

    w = SqlWriter.__new__(SqlWriter)
    w.dialect = "mysql"
    assert w.string("a'b\\c") == "'a''b\\\\c'"
    assert w.ident("a`b") == "`a``b`"
