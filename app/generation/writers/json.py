"""JSON (one array per file) and NDJSON (one record per line) writers, serialised with orjson.

Records are the generator tree's Python form: for XSD schemas that is xmlschema's default
converter convention (attributes `@name`, simple content `$`, repeated elements as lists).
"""

from __future__ import annotations

import orjson

from app.generation.columns import Column
from app.generation.generators import Gen


class NdjsonWriter:
    def __init__(self, gen: Gen) -> None:
        self.gen = gen

    def header(self) -> bytes:
        return b""

    def chunk(self, col: Column, first: int, file_start: int) -> bytes:
        dumps = orjson.dumps
        records = self.gen.py(col)
        return b"\n".join([dumps(r) for r in records]) + b"\n" if records else b""

    def footer(self) -> bytes:
        return b""


class JsonArrayWriter:
    def __init__(self, gen: Gen) -> None:
        self.gen = gen

    def header(self) -> bytes:
        return b"["

    def chunk(self, col: Column, first: int, file_start: int) -> bytes:
        records = self.gen.py(col)
        if not records:
            return b""
        dumps = orjson.dumps
        body = b",\n".join([dumps(r) for r in records])
        # every record but the file's first is preceded by a separator
        return (b"\n" if first == file_start else b",\n") + body

    def footer(self) -> bytes:
        return b"\n]\n"
