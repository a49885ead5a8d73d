"""`params.xml_layout` "documents": each record an XML document of its own.

In a stream (a dataset's shard parts, joined end to end as every format's are) the documents simply
follow each other: each starts with the XML declaration and holds one record element. A stream of
documents is no XML file, so the service hands it out as a zip, one entry per document
(`zip_documents`). Splitting the stream again is exact: the declaration's `<?` cannot occur inside a
document, whose text and attribute values have every `<` escaped."""

from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from app.generation.engine.columns import Column

XML_DECLARATION = b'<?xml version="1.0" encoding="UTF-8"?>\n'
ZIP_MEDIA_TYPE = "application/zip"


class DocumentsWriter:
    """The XML writer of the documents layout: no container (empty header and footer), each record
    the declaration and its element; `records` (what the validity guard reads) is the inner one's."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def header(self) -> bytes:
        return b""

    def footer(self) -> bytes:
        return b""

    def records(self, col: Column) -> list[str]:
        records: list[str] = self.inner.records(col)
        return records

    def chunk(self, col: Column, first: int, file_start: int) -> bytes:
        if col.n == 0:
            return b""
        return b"".join(XML_DECLARATION + text.encode() + b"\n" for text in self.inner.records(col))


def split_documents(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The documents of a stream of them, given in chunks of any size (a chunk may end inside a
    declaration); refuses bytes before the first declaration (not such a stream)."""
    pending = b""
    for chunk in chunks:
        pending += chunk
        # a declaration is complete once followed by anything: keep the tail that may start one
        cut = pending.rfind(XML_DECLARATION, 1)
        if cut <= 0:
            continue
        yield from _whole(pending[:cut])
        pending = pending[cut:]
    if pending:
        yield from _whole(pending)


def _whole(block: bytes) -> Iterator[bytes]:
    if not block.startswith(XML_DECLARATION):
        raise ValueError("not a stream of XML documents: it does not start with the XML declaration")
    start = 0
    while True:
        nxt = block.find(XML_DECLARATION, start + len(XML_DECLARATION))
        if nxt < 0:
            yield block[start:]
            return
        yield block[start:nxt]
        start = nxt


def entry_name(stem: str, number: int, count: int) -> str:
    """`stem-0001.xml`: numbered from 1 over the whole count, zero-padded to its width (at least 4)."""
    return f"{stem}-{number:0{max(4, len(str(count)))}d}.xml"


def zip_documents(
    documents: Iterable[bytes],
    sink: Any,
    *,
    stem: str,
    first: int,
    count: int,
    beat: Callable[[], object] | None = None,
) -> int:
    """Write `documents` into `sink` (a write-only stream is enough) as a zip, an entry each named
    by `entry_name` from record `first` + 1; returns how many."""
    n = 0
    with zipfile.ZipFile(cast(IO[bytes], _WriteOnly(sink)), "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for n, doc in enumerate(documents, start=1):
            zf.writestr(entry_name(stem, first + n, count), doc)
            if beat is not None and n % 1000 == 0:
                beat()
    return n


class _WriteOnly:
    """The sink as zipfile sees it: no tell or seek (entries get data descriptors), a flush that
    does nothing (the store's streams need none)."""

    def __init__(self, sink: Any) -> None:
        self.write = sink.write

    def flush(self) -> None:
        pass


__all__ = ["XML_DECLARATION", "ZIP_MEDIA_TYPE", "DocumentsWriter", "entry_name", "split_documents", "zip_documents"]
