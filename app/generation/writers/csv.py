"""CSV writer (RFC 4180): a header row of dotted column names, one CRLF-terminated row per record.
Design notes: docs/generation.md."""

from __future__ import annotations

from typing import cast

from app.generation.engine.columns import Column
from app.generation.engine.generators import Gen
from app.generation.writers.flatten import cells, flatten
from app.generation.writers.interleave import CSV_QUOTE, EMPTY_NONE, RAW, column_text, interleave

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

    def _encode(self, values: list[str | None], numeric: bool) -> tuple[list[str | None], int]:
        """A column's cells and their `interleave` mode: None cells are written empty and cells
        that need quotes are quoted there, in C (here only for a delimiter that is not ASCII)."""
        if self.formula_guard and not numeric:
            values = ["'" + v if v is not None and v.startswith(_FORMULA_START) else v for v in values]
        try:
            # every cell a str, or the join raises TypeError at a None (no separate scan for one)
            blob = "\x00".join(cast("list[str]", values))
            mode = RAW
        except TypeError:
            blob = "\x00".join([v for v in values if v is not None])
            mode = EMPTY_NONE
        if not any(ch in blob for ch in self._specials):
            return values, mode
        if self.delimiter.isascii():
            return values, CSV_QUOTE
        return column_text(values, len(values), CSV_QUOTE, delimiter=self.delimiter), RAW

    def _rows(self, encoded: list[tuple[list[str | None], int]], n: int) -> bytes:
        if len(encoded) == 1:
            return self._one_column(*encoded[0])
        pieces = ["", *[self.delimiter] * (len(encoded) - 1), "\r\n"]
        delimiter = self.delimiter if self.delimiter.isascii() else ","  # (the C quoting is not used then)
        return interleave(
            pieces, [cells for cells, _ in encoded], n, bytes(mode for _, mode in encoded), delimiter
        )

    def _one_column(self, cells: list[str | None], mode: int) -> bytes:
        """With one column an empty cell would be an empty line, which readers skip (csv.reader
        yields [], pandas drops the row): it is written `""`, as Python's csv module does."""
        out = [v or '""' for v in column_text(cells, len(cells), mode, delimiter=self.delimiter)]
        return interleave(["", "\r\n"], [out], len(out))

    def header(self) -> bytes:
        if not self.columns:
            return b"\r\n"
        return self._rows([self._encode([c.name], numeric=False) for c in self.columns], 1)

    def chunk(self, col: Column, first: int, file_start: int) -> bytes:
        if col.n == 0:
            return b""
        if not self.columns:
            return b"\r\n" * col.n
        # the cells and their separators straight to bytes: no per-record tuple or line string
        return self._rows(
            [self._encode(cells(fc, col), fc.kind in ("integer", "number")) for fc in self.columns], col.n
        )

    def footer(self) -> bytes:
        return b""
