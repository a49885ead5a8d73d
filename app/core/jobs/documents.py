"""A dataset's XML in the documents layout (`params.xml_layout` "documents"): each shard writes its
records as documents following each other (app/generation/xml_documents.py), and the assembly puts
them into one zip per file, an entry per record, named `dataset-ID-0001.xml` ... over the whole
count. A format rendered on request after completion is zipped as it is written."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from app.core.storage.base import Store
from app.core.storage.files import COPY_BUFFER, Sink, WrittenFile
from app.generation.xml_documents import split_documents, zip_documents


def _read(store: Store, paths: Sequence[str]) -> Iterator[bytes]:
    for path in paths:
        with store.open(path) as fh:
            while chunk := fh.read(COPY_BUFFER):
                yield chunk


def zip_parts(
    store: Store,
    pieces: Sequence[Mapping[str, Any]],
    rel: str,
    *,
    dataset_id: int,
    record_count: int,
    beat: Callable[[], object],
) -> WrittenFile:
    """One file's parts (in record order), their documents zipped into `rel`, with size and sha256."""
    first = int(pieces[0]["start"]) if pieces else 0

    def produce(streams: Sequence[Sink]) -> int:
        return zip_documents(
            split_documents(_read(store, [p["path"] for p in pieces])),
            streams[0],
            stem=f"dataset-{dataset_id}",
            first=first,
            count=record_count,
            beat=beat,
        )

    (written,) = store.write_many([rel], produce)
    return written


def zip_rendered(plan: Any, sink: Sink, start: int, stop: int, dataset_id: int) -> int:
    """Records [start, stop) of a completed dataset's plan, zipped as documents into `sink`."""
    return zip_documents(
        plan.xml_documents(start, stop),
        sink,
        stem=f"dataset-{dataset_id}",
        first=start,
        count=plan.record_count,
    )


__all__ = ["zip_parts", "zip_rendered"]
