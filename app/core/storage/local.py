"""The local-folder store (the default): files under one directory, written with the atomic
primitives of app/core/storage/files.py (temporary name, fsync, rename; parts joined inside the
kernel; whole parts hard-linked into place) and blobs in the content-addressed BlobStore."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO

from app.core.errors import StorageUnavailable
from app.core.storage.base import Produce
from app.core.storage.blobs import BlobStore
from app.core.storage.files import (
    COPY_BUFFER,
    WrittenFile,
    concatenate_atomically,
    link_into_place,
    remove_tree,
    write_many_atomically,
)


class LocalStore:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.blobs = BlobStore(root)

    @property
    def description(self) -> str:
        return f"the local folder {self.root}"

    def check(self) -> None:
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageUnavailable(
                f"The storage folder cannot be created ({exc.strerror or exc.__class__.__name__})."
            ) from None
        if not os.access(self.root, os.W_OK | os.X_OK):
            raise StorageUnavailable("The storage folder is not writable by the service.")

    def put_blob(self, content: bytes) -> str:
        return self.blobs.put(content)

    def get_blob(self, key: str) -> bytes:
        return self.blobs.get(key)

    def write_many(
        self,
        relatives: Sequence[str],
        produce: Produce,
        *,
        hashing: bool = True,
        give_up: Callable[[], bool] | None = None,
    ) -> list[WrittenFile]:
        return write_many_atomically(self.root, relatives, produce, hashing=hashing)

    def concatenate(self, sources: Sequence[str], relative: str, beat: Callable[[], object]) -> WrittenFile:
        return concatenate_atomically(self.root, sources, relative, beat)

    def place(self, source: str, relative: str) -> None:
        link_into_place(self.root, source, relative)

    def remove(self, prefix: str) -> None:
        remove_tree(self.root / prefix)

    def has(self, prefix: str) -> bool:
        return (self.root / prefix).exists()

    def dataset_folders(self) -> list[int]:
        root = self.root / "datasets"
        if not root.is_dir():
            return []
        return sorted(int(p.name) for p in root.glob("*") if p.is_dir() and p.name.isdigit())

    def local_path(self, relative: str) -> Path:
        return self.root / relative

    def open(self, relative: str) -> IO[bytes]:
        return open(self.root / relative, "rb")

    def read_range(self, relative: str, start: int, stop: int) -> Iterator[bytes]:
        with open(self.root / relative, "rb") as fh:
            fh.seek(start)
            left = stop - start
            while left > 0 and (chunk := fh.read(min(COPY_BUFFER, left))):
                left -= len(chunk)
                yield chunk

    def stat(self, relative: str) -> int | None:
        try:
            with open(self.root / relative, "rb") as fh:  # opened, not only stat'ed: readable too
                return os.fstat(fh.fileno()).st_size
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise StorageUnavailable(f"The file store cannot read the file ({exc.strerror}).") from None

    def location(self, relative: str) -> None:
        return None

    def presigned_url(self, relative: str, *, filename: str, media_type: str, seconds: int) -> None:
        return None
