"""CSV writer (RFC 4180): a header row of dotted column names, one CRLF-terminated row per record.

Nested objects are flattened (`address.city`), arrays and non-scalar choices are JSON-encoded in
their cell, absent and null values are empty cells, booleans are `true`/`false`. A cell is
quoted only when it holds the delimiter, a quote or a line break (decided per column per chunk
with one scan, so the common case costs a single `str.join` per row). The formula-injection
guard (a `'` before cells starting with = + - @ tab or CR) is OFF by default: test data must stay
exact; `formula_guard=True` turns it on for spreadsheet users.
"""

from __future__ import annotations

import re
from itertools import repeat

from app.generation.columns import Column
from app.generation.generators import Gen
from app.generation.writers.flatten import cells, flatten
from app.generation.writers.interleave import interleave

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


class CsvWriter:
    def __init__(self, gen: Gen, delimiter: str = ",", formula_guard: bool = False) -> None:
        if len(delimiter) != 1 or delimiter in '"\r\n':
            raise ValueError("csv_delimiter must be one character other than a quote or line break")
        self.gen = gen
        self.delimiter = delimiter
        self.formula_guard = formula_guard
        self.columns, _ = flatten(gen)
        self._specials = ('"', delimiter, "\n", "\r")
        self._special_search = re.compile("[" + re.escape('"' + delimiter) + "\r\n]").search

    def _quote(self, value: str) -> str:
        return '"' + value.replace('"', '""') + '"'

    def _encode(self, values: list[str | None], numeric: bool) -> list[str]:
        try:
            blob = "\x00".join(values)  # type: ignore[arg-type]  # raises on a None: no separate scan
            out: list[str] = values  # type: ignore[assignment]
        except TypeError:
            out = ["" if v is None else v for v in values]
            blob = ""
        if self.formula_guard and not numeric:
            out = ["'" + v if v.startswith(_FORMULA_START) else v for v in out]
            blob = ""
        if not blob:
            blob = "\x00".join(out)
        if any(ch in blob for ch in self._specials):
            if blob.count('"') >= len(out) and all(map(str.__contains__, out, repeat('"'))) and \
                    blob.count("\x00") == len(out) - 1:
                # every cell holds a quote (JSON cells): quote the whole column in a few C passes
                return ('"' + blob.replace('"', '""').replace("\x00", '"\x00"') + '"').split("\x00")
            needs = map(self._special_search, out)
            out = [self._quote(v) if need else v for v, need in zip(out, needs, strict=True)]
        return out

    def header(self) -> bytes:
        names = self._encode([c.name for c in self.columns], numeric=False)
        return (self.delimiter.join(names) + "\r\n").encode()

    def chunk(self, col: Column, first: int, file_start: int) -> bytes:
        if col.n == 0:
            return b""
        encoded = [self._encode(cells(fc, col), fc.kind in ("integer", "number")) for fc in self.columns]
        if not encoded:
            return b"\r\n" * col.n
        # the cells and their separators straight to bytes: no per-record tuple or line string
        return interleave(["", *[self.delimiter] * (len(encoded) - 1), "\r\n"], encoded, col.n)

    def footer(self) -> bytes:
        return b""
