"""JSON (one array per file) and NDJSON (one record per line) writers.
Design notes: docs/generation.md."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from typing import cast

import numpy as np
import orjson

from app.generation.engine.arrays import ArrayGen
from app.generation.engine.choices import ChoiceGen
from app.generation.engine.columns import Arr, Choice, Column, Leaf, Obj
from app.generation.engine.generators import AnyGen, Gen, LeafGen
from app.generation.engine.objects import ObjectGen
from app.generation.writers.interleave import JSON_STR, NULL_NONE, RAW, column_text, interleave, join_groups


def _dump(v: object) -> str:
    return orjson.dumps(v).decode()


# bytes JSON escapes in ASCII text, plus DEL (isprintable() rejects it too, so the bytes are the same)
_ASCII_ESCAPED = bytes(range(32)) + b'\x7f"\\'


def _needs_escape(blob: str) -> bool:
    """True when some character of `blob` is one JSON text must escape (or may not hold raw)."""
    if blob.isascii():  # O(1) in CPython; a byte-table pass is 3x faster than isprintable()
        raw = blob.encode("ascii")
        return len(raw.translate(None, _ASCII_ESCAPED)) != len(raw)
    # isprintable() is one C pass: false for controls, U+2028/9 and surrogates
    return not blob.isprintable() or '"' in blob or "\\" in blob


def _plain_strings(values: list) -> bool:
    """True when every value is a string that JSON writes verbatim between quotes."""
    try:
        blob = "".join(values)  # a None (null) makes this raise: no separate scan for it
    except TypeError:
        return False
    return not _needs_escape(blob)


def leaf_json(gen: Gen, col: Leaf) -> list[str]:
    values = col.values
    kind = col.kind
    if kind == "string":
        has_null = None in values
        plain = [v for v in values if v is not None] if has_null else values
        if _needs_escape("".join(plain)):
            out = [_dump(v) for v in values]
        else:
            out = (
                ['"' + v + '"' if v is not None else "null" for v in values]
                if has_null
                else ['"' + v + '"' for v in values]
            )
        return out
    if kind == "boolean":
        return ["null" if v is None else ("true" if v else "false") for v in values]
    if kind in ("integer", "number"):
        text = col.text()
        # (no None in it: every value a str)
        return ["null" if t is None else t for t in text] if None in text else cast("list[str]", text)
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
        made = None
        if isinstance(gen.item, ObjectGen) and isinstance(col.item, Obj):
            made = _object_arrays(gen.item, col.item, col.offsets)
        if made is None:
            items = encode(gen.item, col.item) if col.item is not None else []
            made = _arrays(items, col.offsets)
        out = made
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


def _arrays(items: list[str], offsets: np.ndarray) -> list[str]:
    """`[item,...]` of every row, row r holding items[offsets[r]:offsets[r+1]]. When no row is
    empty: items and separators interleaved, ONE join, then split at a NUL placed after each row
    (NUL cannot occur in JSON text) — instead of a slice, a join and two concatenations per row."""
    lengths = np.diff(offsets)
    if not items or not lengths.all():
        off = offsets.tolist()
        return ["[" + ",".join(items[a:b]) + "]" for a, b in pairwise(off)]
    separators = np.full(len(items), ",", dtype=object)
    separators[offsets[1:] - 1] = "]\x00["
    flat: list[str] = [""] * (2 * len(items))
    flat[0::2] = items
    flat[1::2] = separators.tolist()
    return ("[" + "".join(flat)[:-2]).split("\x00")


def _pieces(template: str, n_args: int, close: str) -> list[str]:
    """The constant text around an object template's member values (`interleave`'s pieces): the
    template opened with `{` in place of its leading comma and ended with `close`."""
    # NUL never occurs in the template: keys are JSON text, where it is escaped
    pieces = (template % (("\x00",) * n_args)).split("\x00")
    pieces[0] = "{" + pieces[0][1:]
    pieces[-1] += close
    return pieces


def _object_arrays(gen: ObjectGen, col: Obj, offsets: np.ndarray) -> list[str] | None:
    """`[{...},...]` of every row for an array of objects: the items' member values interleaved
    with the template's constant pieces, straight into one string per row (`join_groups`) —
    instead of a `%` format per item and a join per row (a third of the NDJSON writer's time for
    `line_items`). None when the shape needs `_object_rows` + `_arrays` (a null item, an
    optional first member)."""
    if offsets[0] != 0 or offsets[-1] != col.n or _any_null(col):
        return None
    made = _template(gen, col)
    if made is None:
        return None
    template, args = made
    if not args or not template.startswith(","):
        return None
    return join_groups(_pieces(template, len(args), "}"), args, col.n, offsets.tolist())


def _any_null(col: Column) -> bool:
    nulls = getattr(col, "nulls", None)
    return nulls is not None and bool(nulls.any())


def _fill(template: str, args: list[list[str]], n: int) -> list[str]:
    """`template % row` for every row of the argument columns: one C-level format per record
    instead of a join over twice as many pieces (keys are in the template, not in the rows)."""
    if not args:
        return [template % ()] * n
    return [template % row for row in zip(*args, strict=True)]


Spec = tuple[int, tuple[str, bytes] | None]  # an argument column's interleave mode and optional entry


def _template(gen: ObjectGen, col: Obj, specs: list[Spec] | None = None) -> tuple[str, list[list]] | None:
    """The object's %-template (every member with a leading comma) and the columns it formats;
    None when a member needs the generic path. With `specs` (a list to fill, one entry per
    column) the columns are for `interleave`: raw string values with the JSON_STR mode, number
    text with NULL_NONE, optional members as (key, presence) entries; without, every column is
    the members' finished text, for a `%` format."""
    pieces: list[str] = []
    args: list[list] = []
    if not _member_template(gen, col, pieces, args, specs):
        return None
    return "".join(pieces), args


def _object_rows(template: str, args: list[list[str]], n: int) -> list[str]:
    if not template:
        return ["{}"] * n
    if template.startswith(","):
        # the first member is always there: open the object in the template, no comma to strip
        return _fill("{" + template[1:] + "}", args, n)
    return ["{" + m[1:] + "}" for m in _fill(template, args, n)]


def _object(gen: ObjectGen, col: Obj) -> list[str] | None:
    made = _template(gen, col)
    return None if made is None else _object_rows(*made, col.n)


def _optional_member(
    add: Callable[..., None],
    native: bool,
    key: str,
    gen: Gen,
    col: Column,
    strings: list[str | None] | None,
    mask: np.ndarray,
) -> None:
    """A member absent from some rows: its key and value only where it is present."""
    if native:
        # written by interleave
        if strings is not None:
            add("%s", strings, JSON_STR, (key, mask.tobytes()))
        else:
            add("%s", encode(gen, col), RAW, (key, mask.tobytes()))
        return
    values = encode(gen, col)
    add("%s", [key + v if p else "" for v, p in zip(values, mask.tolist(), strict=True)])


def _member_template(
    gen: ObjectGen, col: Obj, pieces: list[str], args: list[list], specs: list[Spec] | None = None
) -> bool:
    """Append a %-template whose rows are `,"key":value...` (every member with a leading comma)
    and the columns it formats; False when a member needs the generic path. Members present in
    every row are constants of the template; a string column that needs no escaping is formatted
    between the template's own quotes, so its values are used as they are. With `specs`, see
    `_template`."""
    native = specs is not None

    def add(piece: str, column: list, mode: int = RAW, optional: tuple[str, bytes] | None = None) -> None:
        pieces.append(piece)
        args.append(column)
        if specs is not None:
            specs.append((mode, optional))

    for slot, f, present in zip(gen.slots, col.fields, col.present, strict=True):
        if slot.gen is None or f is None:
            continue
        # the rows where the member is present, when it is absent from some
        mask = present if present is not None and not present.all() else None
        if not slot.name or _is_group(slot.gen):
            if not isinstance(slot.gen, ObjectGen):
                return False
            assert isinstance(f, Obj)
            if mask is None:  # its members are the parent's members
                if not _member_template(slot.gen, f, pieces, args, specs):
                    return False
                continue
            inner_pieces: list[str] = []
            inner_args: list[list[str]] = []
            if not _member_template(slot.gen, f, inner_pieces, inner_args):
                return False
            if not inner_pieces:
                continue
            rows = _fill("".join(inner_pieces), inner_args, f.n)
            if native:
                add("%s", rows, RAW, ("", mask.tobytes()))
            else:
                add("%s", [r if p else "" for r, p in zip(rows, mask.tolist(), strict=True)])
            continue
        key = "," + _dump(slot.name) + ":"
        # a string leaf's values
        strings = (
            f.values if isinstance(slot.gen, LeafGen) and isinstance(f, Leaf) and f.kind == "string" else None
        )
        if mask is not None:
            _optional_member(add, native, key, slot.gen, f, strings, mask)
            continue
        key = key.replace("%", "%%")
        if isinstance(slot.gen, ObjectGen) and isinstance(f, Obj) and not _any_null(f):
            # a nested object in every row: its members become part of this template (no
            # per-record string for it), when its own first member is always there too
            inner_specs: list[Spec] | None = [] if native else None
            made = _template(slot.gen, f, inner_specs)
            if made is not None and (not made[0] or made[0].startswith(",")):
                pieces.append(key + "{" + made[0][1:] + "}")
                args.extend(made[1])
                if specs is not None and inner_specs is not None:
                    specs.extend(inner_specs)
                continue
        if native and strings is not None:
            add(key + "%s", strings, JSON_STR)  # quoted and escaped (None: null) by interleave
        elif (
            native
            and isinstance(slot.gen, LeafGen)
            and isinstance(f, Leaf)
            and f.kind in ("integer", "number")
        ):
            add(key + "%s", f.text(), NULL_NONE)
        elif strings is not None and _plain_strings(strings):
            add(key + '"%s"', strings)
        else:
            add(key + "%s", encode(slot.gen, f))
    return True


def encode_joined(gen: Gen, col: Column, sep: str) -> bytes:
    """`sep.join(encode(gen, col)) + sep`, UTF-8 encoded, for a whole chunk. Records of an object
    whose first member is always present go straight from the member columns to bytes: the
    template's constant pieces and the member values interleaved in one pass (`interleave`), no
    per-record string and no `%` formatting (which were a quarter of the NDJSON writer's time)."""
    if isinstance(gen, ObjectGen) and isinstance(col, Obj) and col.n and not _any_null(col):
        specs: list[Spec] = []
        made = _template(gen, col, specs)
        if made is None:
            return (sep.join(_dump(v) for v in gen.py(col)) + sep).encode()
        template, args = made
        if args and template.startswith(","):
            return interleave(
                _pieces(template, len(args), "}" + sep),
                args,
                col.n,
                bytes(mode for mode, _ in specs),
                ",",
                [optional for _, optional in specs],
            )
        # an optional first member: its leading comma is cut per row, from the columns' finished text
        texts = [
            column_text(a, col.n, mode, optional) for a, (mode, optional) in zip(args, specs, strict=True)
        ]
        return (sep.join(_object_rows(template, texts, col.n)) + sep).encode()
    return (sep.join(encode(gen, col)) + sep).encode()


class NdjsonWriter:
    def __init__(self, gen: Gen) -> None:
        self.gen = gen

    def header(self) -> bytes:
        return b""

    def chunk(self, col: Column, first: int, file_start: int) -> bytes:
        if col.n == 0:
            return b""
        return encode_joined(self.gen, col, "\n")

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
        # every record but the file's first is preceded by a separator
        return (b"\n" if first == file_start else b",\n") + encode_joined(self.gen, col, ",\n")[:-2]

    def footer(self) -> bytes:
        return b"\n]\n"
