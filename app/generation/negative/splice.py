"""Writing a chunk whose invalid records are replaced by their broken forms: the valid runs go
through each writer as usual (the writers here write record by record, so the bytes of a run do
not depend on where it is cut), each broken record is framed as its writer frames a record.
Where a writer puts one record on a line (the formats carrying invalid records), the chunk is written once and its
lines replaced, and the valid forms of the records to break are read from those lines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

import numpy as np
import orjson

from app.generation.engine.columns import Column, take
from app.generation.negative.engine import CARRIERS, Negative

_CARRIERS = frozenset(f for formats in CARRIERS.values() for f in formats)  # each writes a record a line


def _framed(fmt: str, text: str, record: int, file_start: int) -> bytes:
    if fmt == "json":  # JsonArrayWriter: every record but the file's first after ",\\n"
        return ("\n" if record == file_start else ",\n").encode() + text.encode()
    return (text + "\n").encode()  # ndjson, xml: one record per line


def _replaced(fmt: str, whole: bytes, n: int, local: list[int], texts: list[str]) -> bytes | None:
    """The chunk `whole` (n records, one per line) with records `local` replaced by `texts`:
    the chunk is written once and cut at its newlines, not written as many short runs (whose
    per-call cost was most of the time at low rates). None when the lines do not line up."""
    if fmt not in _CARRIERS:
        return None
    lines = whole.split(b"\n")
    if len(lines) != n + 1:  # a record holding a raw newline: the runs are written one by one
        return None
    if fmt != "json":  # ndjson, xml: r0 \n r1 \n ... r(n-1) \n
        for j, t in zip(local, texts, strict=True):
            lines[j] = t.encode()
    else:  # JsonArrayWriter: ("" or ",") \n r0, \n r1, ... \n r(n-1)
        for j, t in zip(local, texts, strict=True):
            lines[j + 1] = t.encode() + (b"," if j < n - 1 else b"")
    return b"\n".join(lines)


def _parsed(
    negative: Negative, targets: Sequence[tuple[str, Any]], wholes: list[bytes], n: int, local: list[int]
) -> list[Any] | None:
    """The valid records `local` of a chunk read back from a target's lines (what a reader of
    the file sees), instead of drawn and written again: a JSON Schema's from json or ndjson (as
    Python values), an XSD's from xml (the writer's text of each record, as
    `XsdBreaker.records` gives it); None when no target's lines line up."""
    kind = negative.breaker.kind
    for (fmt, _), whole in zip(targets, wholes, strict=True):
        if (kind == "json" and fmt in ("json", "ndjson")) or (kind == "xsd" and fmt == "xml"):
            lines = whole.split(b"\n")
            if len(lines) == n + 1:
                if kind == "xsd":
                    return [lines[j].decode() for j in local]
                skip = 1 if fmt == "json" else 0  # the array's separator line first
                return [orjson.loads(lines[j + skip].rstrip(b",")) for j in local]
    return None


def spliced_chunks(
    negative: Negative,
    targets: Sequence[tuple[str, Any]],
    writers: Sequence[tuple[Any, Any]],
    col: Column,
    first: int,
    file_start: int,
    bad: np.ndarray,
    labels: IO[bytes] | None,
) -> list[bytes]:
    """Each target's bytes for the chunk `col` (records first...), its records `bad` broken."""
    local = (bad - first).tolist()
    wholes = [w.chunk(col, first, file_start) for w, _s in writers]
    valid = _parsed(negative, targets, wholes, col.n, local)
    if valid is None:
        valid = negative.breaker.records(take(col, np.asarray(local, dtype=np.int64)))
    texts: list[dict[str, str]] = []
    for index, record in zip(bad.tolist(), valid, strict=True):
        broken, label = negative.broken(index, record)
        texts.append({fmt: negative.breaker.text(fmt, broken) for fmt, _ in targets})
        if labels is not None:
            labels.write(label.ndjson())
    out: list[bytes] = []
    for (fmt, _), (w, _s), chunk in zip(targets, writers, wholes, strict=True):
        whole = _replaced(fmt, chunk, col.n, local, [t[fmt] for t in texts])
        if whole is not None:
            out.append(whole)
            continue
        parts: list[bytes] = []
        a = 0
        for j, t in zip(local, texts, strict=True):
            if j > a:
                parts.append(w.chunk(take(col, np.arange(a, j)), first + a, file_start))
            parts.append(_framed(fmt, t[fmt], first + j, file_start))
            a = j + 1
        if a < col.n:
            parts.append(w.chunk(take(col, np.arange(a, col.n)), first + a, file_start))
        out.append(b"".join(parts))
    return out
