"""The storage interface: everything the service keeps outside its database (uploaded schemas and
avatars as content-addressed blobs, dataset parts, files and rendered formats under relative
paths such as `datasets/7/files/data-0000.json`) goes through one `Store`. Two backends: a local
folder (app/core/storage/local.py) and S3-compatible object storage (app/core/storage/s3.py).

A store's failures that are the deployment's (unreachable endpoint, missing bucket, refused
credentials) are raised as `StorageUnavailable`, whose detail is one sentence safe to show: no
traceback, endpoint secret or credential."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO, Protocol

from app.core.errors import StorageUnavailable
from app.core.storage.files import Sink, WrittenFile

# what writes a set of files: a HashingWriter each on the local disk, a multipart upload on S3
Produce = Callable[[Sequence[Sink]], object]


class Store(Protocol):
    """Where the service's files live. Paths are relative and use `/`; a path is written once
    and becomes visible whole (never half a file under its name)."""

    @property
    def description(self) -> str:
        """Where this store keeps things, for logs (no credential)."""
        ...

    def check(self) -> None:
        """Raise StorageUnavailable with a sentence when the store cannot be used."""

    def put_blob(self, content: bytes) -> str:
        """Keep `content` under its sha256 (hex), which is returned."""
        ...

    def get_blob(self, key: str) -> bytes:
        """A blob's bytes; FileNotFoundError when there is none under `key`."""
        ...

    def write_many(
        self,
        relatives: Sequence[str],
        produce: Produce,
        *,
        hashing: bool = True,
        give_up: Callable[[], bool] | None = None,
    ) -> list[WrittenFile]:
        """Several files written together, one stream each; on failure none of them appears.
        `give_up`: asked before a transient fault is retried (the work was cancelled meanwhile)."""
        ...

    def concatenate(self, sources: Sequence[str], relative: str, beat: Callable[[], object]) -> WrittenFile:
        """One file from parts, in order, with its size and sha256; `beat` is called as it goes."""
        ...

    def place(self, source: str, relative: str) -> None:
        """A finished part under its final name too (the part stays)."""

    def remove(self, prefix: str) -> None:
        """Everything under the folder `prefix`, unfinished uploads included; best effort (what a
        failure leaves is swept later), never raises."""

    def has(self, prefix: str) -> bool:
        """Whether anything (an unfinished upload too) lies under the folder `prefix`."""
        ...

    def dataset_folders(self) -> list[int]:
        """The ids of datasets with anything stored under `datasets/{id}/`."""
        ...

    def local_path(self, relative: str) -> Path | None:
        """The file on this machine's disk, when the store is a local folder."""
        ...

    def open(self, relative: str) -> IO[bytes]:
        """A file for reading, streamed (the caller closes it)."""
        ...

    def read_range(self, relative: str, start: int, stop: int) -> Iterator[bytes]:
        """Bytes [start, stop) of a file, in chunks."""
        ...

    def stat(self, relative: str) -> int | None:
        """The file's size in bytes, or None when there is no such file; StorageUnavailable when
        the store cannot tell within a few seconds (unreachable, frozen, refusing to read it)."""
        ...

    def location(self, relative: str) -> tuple[str | None, str, str] | None:
        """(endpoint URL, bucket, key) of a file in an object store, for copies inside it; None
        for a local folder."""
        ...

    def presigned_url(self, relative: str, *, filename: str, media_type: str, seconds: int) -> str | None:
        """A URL that serves the file without credentials for `seconds`; None when the store has none."""
        ...


__all__ = ["Produce", "StorageUnavailable", "Store"]
