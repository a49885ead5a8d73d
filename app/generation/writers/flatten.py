"""Flattening of the generator tree into named cells, shared by the CSV and SQL writers.
Design notes: docs/generation.md."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from app.generation.engine.arrays import ArrayGen
from app.generation.engine.choices import ChoiceGen
from app.generation.engine.columns import Arr, Choice, Column, Leaf, Obj
from app.generation.engine.generators import AnyGen, Gen, LeafGen
from app.generation.engine.objects import ObjectGen
from app.generation.writers.json import encode


@dataclass
class FlatColumn:
    name: str  # dotted path
    kind: str  # Leaf kind, or "json" for an encoded cell
    gen: Gen
    path: list[tuple[Gen, int]]  # (object or choice gen, slot/option index) from the root
    # the same column in other variants of an if/then/else object: (gen, path) pairs
    alternatives: list[tuple[Gen, list[tuple[Gen, int]]]] = field(default_factory=list)


@dataclass
class ChildTable:
    name: str  # dotted path of the array
    gen: ArrayGen
    path: list[tuple[Gen, int]]
    columns: list[FlatColumn] = field(default_factory=list)
    children: list[ChildTable] = field(default_factory=list)


def _is_object_array(gen: Gen) -> bool:
    return isinstance(gen, ArrayGen) and not gen.prefix and isinstance(gen.item, ObjectGen)


def flatten(gen: Gen, split_arrays: bool = False) -> tuple[list[FlatColumn], list[ChildTable]]:
    cols: list[FlatColumn] = []
    tables: list[ChildTable] = []
    _walk(gen, "", [], cols, tables, split_arrays)
    return cols, tables


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix and name else (prefix or name)


def _walk(
    gen: Gen, prefix: str, path: list, cols: list[FlatColumn], tables: list[ChildTable], split: bool
) -> None:
    if isinstance(gen, ObjectGen):
        for i, slot in enumerate(gen.slots):
            if slot.gen is None:
                continue
            _walk(slot.gen, _join(prefix, slot.name), [*path, (gen, i)], cols, tables, split)
        return
    if isinstance(gen, ChoiceGen) and gen.must_match is not None:
        # variants of one object: one column per name, filled from whichever variant a row used
        # (their arrays stay JSON cells: child tables per variant would collide)
        merged: dict[str, FlatColumn] = {}
        for k, opt in enumerate(gen.options):
            if opt is None:
                continue
            found: list[FlatColumn] = []
            _walk(opt, prefix, [*path, (gen, k)], found, tables, False)
            for fc in found:
                if fc.name not in merged:
                    merged[fc.name] = fc
                    cols.append(fc)
                else:
                    first = merged[fc.name]
                    if first.kind != fc.kind:
                        first.kind = "json"
                    first.alternatives.append((fc.gen, fc.path))
        return
    if isinstance(gen, ChoiceGen) and gen.group:
        for k, opt in enumerate(gen.options):
            if opt is not None:
                _walk(opt, _join(prefix, opt.name), [*path, (gen, k)], cols, tables, split)
        return
    if split and _is_object_array(gen):
        assert isinstance(gen, ArrayGen) and gen.item is not None
        table = ChildTable(prefix or "items", gen, path)
        table.columns, table.children = flatten(gen.item, split_arrays=True)
        tables.append(table)
        return
    if isinstance(gen, LeafGen):
        cols.append(FlatColumn(prefix or "value", gen.kind, gen, path))
        return
    cols.append(FlatColumn(prefix or "value", "json", gen, path))


def _leaf_cells(fc: FlatColumn, col: Column) -> list[str | None]:
    if fc.kind == "json" or not isinstance(col, Leaf):
        if isinstance(fc.gen, (AnyGen, ChoiceGen)):
            values = fc.gen.py(col)
            if all(isinstance(v, str) or v is None for v in values):
                return values  # a scalar union / unconstrained word: its text, not JSON
        texts: list[str | None] = list(encode(fc.gen, col))
        nulls = getattr(col, "nulls", None)
        if nulls is not None:
            for i in np.flatnonzero(nulls).tolist():
                texts[i] = None
        return texts
    return col.text()


def cells(fc: FlatColumn, root: Column) -> list[str | None]:
    """The cells of one flat column for every row of `root` (None: absent or null)."""
    n = root.n
    out = _descend(fc, 0, root, n)
    for gen, path in fc.alternatives:
        other = _descend(FlatColumn(fc.name, fc.kind, gen, path), 0, root, n)
        out = [a if a is not None else b for a, b in zip(out, other, strict=True)]
    return out


def _descend(fc: FlatColumn, depth: int, col: Column, n: int) -> list[str | None]:
    if depth == len(fc.path):
        return _leaf_cells(fc, col)
    _gen, idx = fc.path[depth]
    if isinstance(col, Obj):
        child = col.fields[idx]
        if child is None:
            return [None] * n
        out = _descend(fc, depth + 1, child, n)
        mask = col.present[idx]
        if mask is not None and not mask.all():
            out = [v if m else None for v, m in zip(out, mask.tolist(), strict=True)]
        if col.nulls is not None:
            out = [None if z else v for v, z in zip(out, col.nulls.tolist(), strict=True)]
        return out
    if isinstance(col, Choice):
        sub = col.cols[idx]
        out = [None] * n
        if sub is not None:
            vals = _descend(fc, depth + 1, sub, sub.n)
            for i, v in zip(col.rows(idx).tolist(), vals, strict=True):
                out[i] = v
        if col.nulls is not None:
            out = [None if z else v for v, z in zip(out, col.nulls.tolist(), strict=True)]
        return out
    raise TypeError(f"unexpected column {type(col).__name__} on a flat path")


def locate(path: list[tuple[Gen, int]], root: Column) -> tuple[Column | None, np.ndarray, np.ndarray]:
    """The column at the end of `path`, the root row of each of its rows, and whether that row's
    value is really there (every enclosing object present and not null, the value not null)."""
    col: Any = root
    rows = np.arange(root.n)
    ok = np.ones(root.n, dtype=bool)
    for _gen, idx in path:
        if isinstance(col, Obj):
            if col.nulls is not None:
                ok &= ~col.nulls
            if col.present[idx] is not None:
                ok &= col.present[idx]
            col = col.fields[idx]
        elif isinstance(col, Choice):
            sel = col.branch == idx
            if col.nulls is not None:
                ok &= ~col.nulls
            rows, ok = rows[sel], ok[sel]
            col = col.cols[idx]
        if col is None:
            return None, rows[:0], ok[:0]
    if isinstance(col, Arr) and col.nulls is not None:
        ok &= ~col.nulls
    return col, rows, ok
