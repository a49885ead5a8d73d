"""One chunk of records as UTF-8 bytes from per-column text: the writers' final assembly step.
Design notes: docs/generation.md."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

import orjson

_native: Callable[..., bytes] | None
_native_groups: Callable[[list[str], list[list[str]], int, list[int]], list[str]] | None
try:
    from app.generation.writers._interleave import interleave as _native
    from app.generation.writers._interleave import join_groups as _native_groups
except ImportError:  # built without a compiler: the pure-Python path gives the same bytes
    _native = _native_groups = None


RAW, EMPTY_NONE, CSV_QUOTE, JSON_STR, NULL_NONE = 0, 1, 2, 3, 4


def csv_field(value: str, specials: tuple[str, ...]) -> str:
    """A CSV cell, quoted (its quotes doubled) when it holds one of `specials`."""
    if any(ch in value for ch in specials):
        return '"' + value.replace('"', '""') + '"'
    return value


def _json_string(value: object) -> object:
    return orjson.dumps(value).decode() if isinstance(value, str) else value  # a non-str fails the join


def _is_list_of(values: object, n: int) -> bool:
    """A list of n values: the C extension's check of its arguments (callers may pass anything)."""
    return isinstance(values, list) and len(values) == n


def _is_presence(optional: object, n: int) -> bool:
    """(prefix, n presence bytes)."""
    return (
        isinstance(optional, tuple)
        and len(optional) == 2
        and isinstance(optional[1], bytes)
        and len(optional[1]) == n
    )


def _with_mode(values: list, mode: int, delimiter: str) -> list:
    if mode == RAW:
        return values
    if mode == JSON_STR:
        return ["null" if v is None else _json_string(v) for v in values]
    if mode == NULL_NONE:
        return ["null" if v is None else v for v in values]
    out = ["" if v is None else v for v in values]
    if mode == CSV_QUOTE:
        specials = ('"', delimiter, "\r", "\n")
        out = [csv_field(v, specials) if isinstance(v, str) else v for v in out]
    return out


def column_text(
    values: list, n: int, mode: int = RAW, optional: tuple[str, bytes] | None = None, delimiter: str = ","
) -> list:
    """The finished text of one `interleave` column, row by row: what the C extension writes for
    it (a non-str left in it fails the caller's join)."""
    if not _is_list_of(values, n):
        raise ValueError(f"interleave() column is not a list of {n} values")
    if optional is not None:
        if not _is_presence(optional, n):
            raise ValueError(f"interleave() optional entry is not (prefix, {n} presence bytes)")
        prefix, present = optional
        values = [v for v, p in zip(values, present, strict=True) if p]  # absent rows are never read
    texts = _with_mode(values, mode, delimiter)
    if optional is None:
        return texts
    present_texts = iter(texts)
    return [prefix + next(present_texts) if p else "" for p in present]


def _interleave_py(
    pieces: list[str],
    columns: list[list[str]],
    n: int,
    modes: bytes | None = None,
    delimiter: str = ",",
    optional: list[tuple[str, bytes] | None] | None = None,
) -> bytes:
    k = len(columns)
    if len(pieces) != k + 1:
        raise ValueError("interleave() needs one more piece than columns")
    if n < 0:
        raise ValueError("interleave() needs n >= 0")
    if modes is not None and len(modes) != k:
        raise ValueError("interleave() needs one mode per column")
    if modes is not None and any(m > NULL_NONE for m in modes):
        raise ValueError("interleave() modes are 0 to 4")
    if optional is not None and not _is_list_of(optional, k):
        raise ValueError("interleave() optional is None or a list with one entry per column")
    if len(delimiter) != 1 or not delimiter.isascii():
        raise ValueError("interleave() needs a one-character ASCII delimiter")
    stride = 2 * k + 1
    flat: list[str] = [""] * (stride * n)
    for j, piece in enumerate(pieces):
        flat[2 * j :: stride] = [piece] * n
    for j, values in enumerate(columns):
        if not _is_list_of(values, n):
            raise ValueError(f"interleave() column {j} is not a list of {n} values")
        flat[2 * j + 1 :: stride] = column_text(
            values,
            n,
            RAW if modes is None else modes[j],
            None if optional is None else optional[j],
            delimiter,
        )
    try:
        return "".join(flat).encode()
    except TypeError as exc:
        raise TypeError(f"interleave() takes str values: {exc}") from None


def _join_groups_py(
    pieces: list[str], columns: list[list[str]], n_items: int, offsets: list[int]
) -> list[str]:
    if len(pieces) != len(columns) + 1:
        raise ValueError("join_groups() needs one more piece than columns and n+1 offsets")
    if any(len(c) != n_items for c in columns):
        raise ValueError(f"join_groups() columns must be lists of {n_items} values")
    if not offsets or offsets[0] != 0 or offsets[-1] != n_items or any(a > b for a, b in pairwise(offsets)):
        raise ValueError("join_groups() offsets must rise from 0 to the item count")
    tail = pieces[1:]
    items = (
        [
            pieces[0] + "".join(v + p for v, p in zip(values, tail, strict=True))
            for values in zip(*columns, strict=True)
        ]
        if columns
        else [pieces[0]] * n_items
    )
    return ["[" + ",".join(items[a:b]) + "]" for a, b in pairwise(offsets)]


interleave: Callable[..., bytes] = _native or _interleave_py
join_groups: Callable[[list[str], list[list[str]], int, list[int]], list[str]] = (
    _native_groups or _join_groups_py
)
NATIVE = _native is not None
