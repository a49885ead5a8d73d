"""SQL writer for PostgreSQL, MySQL and SQLite. (design notes: docs/generation.md)"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from app.generation.engine.arrays import ArrayGen
from app.generation.engine.columns import Arr, Column, take
from app.generation.engine.generators import Gen, LeafGen
from app.generation.model import Kind
from app.generation.values.textcodes import int_texts
from app.generation.writers.flatten import ChildTable, FlatColumn, cells, flatten, locate
from app.generation.writers.interleave import interleave

DIALECTS = ("postgresql", "mysql", "sqlite")
BATCH = 512  # records per INSERT; divides the engine's block size, so chunking cannot move a batch
CHILD_BATCH = 1000


def _int_texts(values: np.ndarray) -> list[str]:
    texts = int_texts(values)
    return texts if texts is not None else [str(i) for i in values.tolist()]


@dataclass
class _Table:
    name: str
    columns: list[FlatColumn]
    parent: _Table | None
    array_gen: ArrayGen | None
    path: list  # path to the array inside the parent's record column
    children: list[_Table]
    cap: int = 1


def _sql_type(fc: FlatColumn, dialect: str) -> str:
    kind = fc.kind
    spec = fc.gen.spec if isinstance(fc.gen, LeafGen) else None
    if kind == "integer":
        big = getattr(getattr(fc.gen, "values_gen", None), "big", False)
        if dialect == "sqlite":
            return "INTEGER"
        return ("NUMERIC" if dialect == "postgresql" else "DECIMAL(65,0)") if big else "BIGINT"
    if kind == "number":
        return "NUMERIC" if dialect != "mysql" else "DECIMAL(65,20)"
    if kind == "boolean":
        return "INTEGER" if dialect == "sqlite" else "BOOLEAN"
    if spec is not None and spec.kind == Kind.DATE and dialect != "sqlite":
        return "DATE"
    if spec is not None and spec.kind == Kind.DATETIME and dialect == "postgresql":
        return "TIMESTAMPTZ"
    return "TEXT"


class SqlWriter:
    def __init__(self, gen: Gen, *, dialect: str, table_name: str) -> None:
        if dialect not in DIALECTS:
            raise ValueError(f"sql_dialect must be one of {', '.join(DIALECTS)}")
        self.gen = gen
        self.dialect = dialect
        cols, tables = flatten(gen, split_arrays=True)
        self.root = _Table(table_name, cols, None, None, [], [])
        self.root.children = [self._child(t, self.root) for t in tables]
        self.tables: list[_Table] = []
        self._collect(self.root)

    def _child(self, t: ChildTable, parent: _Table) -> _Table:
        name = f"{parent.name}__{t.name.replace('.', '_')}"
        table = _Table(name, t.columns, parent, t.gen, t.path, [], t.gen.cap)
        table.children = [self._child(c, table) for c in t.children]
        return table

    def _collect(self, t: _Table) -> None:
        self.tables.append(t)
        for c in t.children:
            self._collect(c)

    # -- quoting ---------------------------------------------------------------------------

    def ident(self, name: str) -> str:
        if self.dialect == "mysql":
            return "`" + name.replace("`", "``") + "`"
        return '"' + name.replace('"', '""') + '"'

    def string(self, value: str) -> str:
        if self.dialect == "mysql":
            value = value.replace("\\", "\\\\")
        return "'" + value.replace("'", "''") + "'"

    def _literals(self, fc: FlatColumn, values: list[str | None]) -> tuple[list[str], bool]:
        """(texts, quote): SQL literals of a column, or, when `quote` is True, string values that
        need no escaping and no NULL, which the row template puts between its own quotes."""
        if fc.kind in ("integer", "number"):
            if None in values:
                return ["NULL" if v is None else v for v in values], False
            return cast("list[str]", values), False  # no None in it
        if fc.kind == "boolean":
            t, f = ("1", "0") if self.dialect == "sqlite" else ("TRUE", "FALSE")
            return ["NULL" if v is None else (t if v == "true" else f) for v in values], False
        texts = None if None in values else cast("list[str]", values)  # without a None, all are str
        blob = "\x00".join(v for v in values if v is not None) if texts is None else "\x00".join(texts)
        if "'" in blob or (self.dialect == "mysql" and "\\" in blob):
            return ["NULL" if v is None else self.string(v) for v in values], False
        if texts is not None:
            return texts, True
        return ["NULL" if v is None else f"'{v}'" for v in values], False

    # -- document --------------------------------------------------------------------------

    def header(self) -> bytes:
        key = "BIGINT" if self.dialect != "sqlite" else "INTEGER"
        out = ["BEGIN;" if self.dialect != "mysql" else "START TRANSACTION;"]
        for t in self.tables:
            defs = [f"{self.ident('_row_id')} {key} PRIMARY KEY"]
            if t.parent is not None:
                defs.append(f"{self.ident('_parent_id')} {key} NOT NULL")
                defs.append(f"{self.ident('_index')} INTEGER NOT NULL")
            defs += [f"{self.ident(c.name)} {_sql_type(c, self.dialect)}" for c in t.columns]
            if t.parent is not None:
                defs.append(
                    f"FOREIGN KEY ({self.ident('_parent_id')}) REFERENCES "
                    f"{self.ident(t.parent.name)} ({self.ident('_row_id')})"
                )
            out.append(f"CREATE TABLE {self.ident(t.name)} (\n  " + ",\n  ".join(defs) + "\n);")
        return ("\n".join(out) + "\n").encode()

    def footer(self) -> bytes:
        return b"COMMIT;\n"

    def chunk(self, col: Column, first: int, file_start: int) -> bytes:
        n = col.n
        if n == 0:
            return b""
        ids = np.arange(first, first + n, dtype=np.int64) + 1
        root = self._rows(self.root, col, ids, None, None)
        parts: list[bytes] = []
        # batch boundaries sit at global multiples of BATCH, independent of chunking
        starts = sorted({0, *[b - first for b in range(((first // BATCH) + 1) * BATCH, first + n, BATCH)]})
        for a, b in itertools.pairwise([*starts, n]):
            root.insert(a, b, parts)
        return b"".join(parts)

    def _rows(
        self,
        t: _Table,
        col: Column,
        ids: np.ndarray,
        parent_ids: np.ndarray | None,
        index: np.ndarray | None,
    ) -> _Rows:
        """The row texts of table `t` (and of its child tables) for every row of `col`, once per
        chunk: a batch of the root's rows is then written from slices of them."""
        keys = [ids] if parent_ids is None or index is None else [ids, parent_ids, index]
        columns = [_int_texts(k) for k in keys]
        pieces = ["("] + [", "] * len(keys)  # the last separator piece is closed below
        for fc in t.columns:
            texts, quote = self._literals(fc, cells(fc, col))
            columns.append(texts)
            pieces[-1] += "'" if quote else ""
            pieces.append(("'" if quote else "") + ", ")
        pieces[-1] = pieces[-1][:-2] + "),\n"  # the last row's ",\n" becomes ";\n"
        names = [
            "_row_id",
            *(["_parent_id", "_index"] if t.parent is not None else []),
            *[c.name for c in t.columns],
        ]
        head = f"INSERT INTO {self.ident(t.name)} ({', '.join(self.ident(c) for c in names)}) VALUES\n"
        rows = _Rows(head.encode(), pieces, columns, CHILD_BATCH if t.parent is not None else BATCH)
        for child in t.children:
            arr, rows_of, ok = locate(child.path, col)
            if not isinstance(arr, Arr) or arr.item is None:
                continue
            lengths = np.where(ok, arr.lengths, 0)
            if not lengths.sum():
                continue
            items = take(arr.item, np.flatnonzero(np.repeat(ok, arr.lengths)))
            parent = np.repeat(ids[rows_of], lengths)
            pos = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            child_ids = (parent - 1) * child.cap + pos + 1
            ends = np.concatenate([[0], np.cumsum(lengths)]).tolist()
            rows.children.append((rows_of, ends, self._rows(child, items, child_ids, parent, pos)))
        return rows


@dataclass
class _Rows:
    """A table's row texts for a chunk (`interleave`'s pieces and columns) and its child tables':
    (the parent row of each array, the first child row of each array and one past the last, rows)."""

    head: bytes
    pieces: list[str]
    columns: list[list[str]]
    step: int
    children: list[tuple[np.ndarray, list[int], _Rows]] = field(default_factory=list)

    def insert(self, a: int, b: int, parts: list[bytes]) -> None:
        """Rows [a, b): INSERTs of `step` rows, then each child table's rows of these rows."""
        for s in range(a, b, self.step):
            e = min(b, s + self.step)
            text = interleave(self.pieces, [c[s:e] for c in self.columns], e - s)
            parts += (self.head, text[:-2], b";\n")
        for rows_of, ends, child in self.children:
            lo, hi = np.searchsorted(rows_of, [a, b]).tolist()
            if ends[hi] > ends[lo]:
                child.insert(ends[lo], ends[hi], parts)
