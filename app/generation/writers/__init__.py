"""Output writers: each turns a chunk of columns into bytes of one format (DESIGN §7).

A writer has `header() -> bytes`, `chunk(col, first, file_start) -> bytes` and `footer() -> bytes`.
`first` is the global index of the chunk's first record and `file_start` the index of the first
record of the file being written, so separators and keys depend only on record positions: files
written by shards and concatenated are byte-identical to a single run.
"""

from __future__ import annotations

from typing import Protocol

from app.generation.engine.columns import Column


class Writer(Protocol):
    def header(self) -> bytes: ...

    def chunk(self, col: Column, first: int, file_start: int) -> bytes: ...

    def footer(self) -> bytes: ...
