"""Output writers: each turns a chunk of columns into bytes of one format (DESIGN §7).
Design notes: docs/generation.md."""

from __future__ import annotations

from typing import Protocol

from app.generation.engine.columns import Column


class Writer(Protocol):
    def header(self) -> bytes: ...

    def chunk(self, col: Column, first: int, file_start: int) -> bytes: ...

    def footer(self) -> bytes: ...
