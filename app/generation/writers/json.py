"""JSON (one array per file) and NDJSON (one record per line) writers.

Records are encoded column by column: each scalar column becomes JSON text in bulk (strings are
quoted directly unless the column holds a character that needs escaping, numbers reuse their
exact decimal text), objects and arrays are joined from their children's text. Shapes the fast
path does not cover (positional `prefixItems`, repeated anonymous groups) are serialised from
their Python form with orjson. Output is UTF-8 without escaping of non-ASCII characters.

For XSD schemas the records follow xmlschema's default converter convention (attributes `@name`,
simple content `$`, repeated elements as lists).
"""

from __future__ import annotations

from itertools import repeat

import numpy as np
import orjson

from app.generation.columns import Arr, Choice, Column, Leaf, Obj
from app.generation.generators import AnyGen, ArrayGen, ChoiceGen, Gen, LeafGen, ObjectGen


def _dump(v: object) -> str:
    return orjson.dumps(v).decode()


def leaf_json(gen: Gen, col: Leaf) -> list[str]:
    values = col.values
    kind = col.kind
    if kind == "string":
        has_null = None in values
        plain = [v for v in values if v is not None] if has_null else values
        blob = "".join(plain)
        # isprintable() is one C pass: false for controls, U+2028/9 and surrogates
        if not blob.isprintable() or '"' in blob or "\\" in blob:
            out = [_dump(v) for v in values]
        else:
            out = ['"' + v + '"' if v is not None else "null" for v in values] if has_null else [
                '"' + v + '"' for v in values]
        return out
    if kind == "boolean":
        return ["null" if v is None else ("true" if v else "false") for v in values]
    if kind in ("integer", "number"):
        text = col.text()
        return ["null" if t is None else t for t in text]
    return [_dump(v) for v in values]


def _is_group(gen: Gen | None) -> bool:
    return isinstance(gen, (ObjectGen, ChoiceGen)) and gen.name == "" and getattr(gen, "group", False)


def encode(gen: Gen, col: Column) -> list[str]:
    """JSON text of every row of `col`."""
    if isinstance(gen, (LeafGen, AnyGen)):
        assert isinstance(col, Leaf)
        return leaf_json(gen, col)
    if isinstance(gen, ObjectGen):
        assert isinstance(col, Obj)
        out = _object(gen, col)
        if out is None:
            return [_dump(v) for v in gen.py(col)]
    elif isinstance(gen, ArrayGen) and not gen.prefix and gen.item is not None and not _is_group(gen.item):
        assert isinstance(col, Arr)
        items = encode(gen.item, col.item) if col.item is not None else []
        off = col.offsets.tolist()
        out = ["[" + ",".join(items[off[i]:off[i + 1]]) + "]" for i in range(col.n)]
    elif isinstance(gen, ChoiceGen) and not gen.group:
        assert isinstance(col, Choice)
        out = ["null"] * col.n
        for k, opt in enumerate(gen.options):
            sub = col.cols[k]
            if opt is None or sub is None:
                continue
            for i, t in zip(col.rows(k).tolist(), encode(opt, sub), strict=True):
                out[i] = t
    else:
        return [_dump(v) for v in gen.py(col)]
    nulls = getattr(col, "nulls", None)
    if nulls is not None:
        for i in np.flatnonzero(nulls).tolist():
            out[i] = "null"
    return out


def _object(gen: ObjectGen, col: Obj) -> list[str] | None:
    parts: list = []
    if not _member_parts(gen, col, parts):
        return None
    if not parts:
        return ["{}"] * col.n
    first = parts[0]
    if isinstance(first, repeat):
        # the first member is always there: open the object in its constant, no comma to strip
        key = next(first)
        parts[0] = repeat("{" + key[1:])
        parts.append(repeat("}"))
        # strict=False: the constant parts are endless repeats
        return ["".join(row) for row in zip(*parts, strict=False)]
    return ["{" + m[1:] + "}" for m in ("".join(row) for row in zip(*parts, strict=False))]


def _member_parts(gen: ObjectGen, col: Obj, parts: list) -> bool:
    """Append iterables whose row-wise concatenation is `,"key":value...` (every member with a
    leading comma); False when a member needs the generic path."""
    for slot, f, present in zip(gen.slots, col.fields, col.present, strict=True):
        if slot.gen is None or f is None:
            continue
        masked = present is not None and not present.all()
        if not slot.name or _is_group(slot.gen):
            if not isinstance(slot.gen, ObjectGen):
                return False
            assert isinstance(f, Obj)
            inner: list = []
            if not _member_parts(slot.gen, f, inner):
                return False
            if not inner:
                continue
            rows = ["".join(r) for r in zip(*inner, strict=False)]
            if masked:
                rows = [r if p else "" for r, p in zip(rows, present.tolist(), strict=True)]  # type: ignore[union-attr]
            parts.append(rows)
            continue
        key = "," + _dump(slot.name) + ":"
        values = encode(slot.gen, f)
        if masked:
            parts.append([key + v if p else "" for v, p in zip(values, present.tolist(), strict=True)])  # type: ignore[union-attr]
        else:
            parts.append(repeat(key))
            parts.append(values)
    return True


class NdjsonWriter:
    def __init__(self, gen: Gen) -> None:
        self.gen = gen

    def header(self) -> bytes:
        return b""

    def chunk(self, col: Column, first: int, file_start: int) -> bytes:
        if col.n == 0:
            return b""
        return ("\n".join(encode(self.gen, col)) + "\n").encode()

    def footer(self) -> bytes:
        return b""


class JsonArrayWriter:
    def __init__(self, gen: Gen) -> None:
        self.gen = gen

    def header(self) -> bytes:
        return b"["

    def chunk(self, col: Column, first: int, file_start: int) -> bytes:
        if col.n == 0:
            return b""
        body = ",\n".join(encode(self.gen, col))
        # every record but the file's first is preceded by a separator
        return ((("\n" if first == file_start else ",\n") + body).encode())

    def footer(self) -> bytes:
        return b"\n]\n"
