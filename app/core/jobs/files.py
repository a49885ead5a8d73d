"""Where dataset files live and how they are written: temporary name, fsync, rename."""

from __future__ import annotations

import hashlib
import os
import shutil
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

EXTENSIONS = {"csv": "csv", "json": "json", "ndjson": "ndjson", "xml": "xml", "sql": "sql"}
MEDIA_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "json": "application/json",
    "ndjson": "application/x-ndjson",
    "xml": "application/xml",
    "sql": "application/sql",
}


def dataset_dir(data_dir: Path, dataset_id: int) -> Path:
    return data_dir / "datasets" / str(dataset_id)


COPY_BUFFER = 1024 * 1024


def file_name(fmt: str, file_index: int) -> str:
    return f"data-{file_index:04d}.{EXTENSIONS[fmt]}"


def final_file_path(dataset_id: int, fmt: str, file_index: int) -> str:
    return f"datasets/{dataset_id}/files/{file_name(fmt, file_index)}"


def rendered_file_path(dataset_id: int, fmt: str, file_index: int) -> str:
    """A format rendered on request after completion (not one of the dataset's `types`)."""
    return f"datasets/{dataset_id}/rendered/{file_name(fmt, file_index)}"


def shard_work_dir(dataset_id: int, shard_index: int, attempt: int) -> str:
    """Where one attempt of one shard writes its parts: its own folder, so a worker that lost its
    fence removes exactly what it wrote and never a successor's files."""
    return f"datasets/{dataset_id}/work/s{shard_index:04d}-a{attempt}"


class _HashingWriter:
    """A binary stream that hashes and counts what passes through it."""

    def __init__(self, fh: IO[bytes]) -> None:
        self._fh = fh
        self.sha256 = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes) -> int:
        self._fh.write(data)
        self.sha256.update(data)
        self.size += len(data)
        return len(data)


@dataclass(frozen=True, slots=True)
class WrittenFile:
    path: str
    size_bytes: int
    sha256: str


def write_atomically(data_dir: Path, relative: str, produce: Callable[[_HashingWriter], object]) -> WrittenFile:
    target = data_dir / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    # a temporary name of its own: two renders of one format run at once (two downloads) and
    # shared one `.part` file, so the second rename failed with FileNotFoundError (HTTP 500)
    tmp = target.with_name(f".{target.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.part")
    try:
        with open(tmp, "wb", buffering=1024 * 1024) as fh:
            stream = _HashingWriter(fh)
            produce(stream)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return WrittenFile(relative, stream.size, stream.sha256.hexdigest())


def link_into_place(data_dir: Path, source: str, relative: str) -> None:
    """Give a finished part its final name without copying it (a hard link, renamed into place, so
    the part stays for a re-run of an interrupted assembly); a copy where links are refused."""
    target = data_dir / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.part")
    try:
        try:
            os.link(data_dir / source, tmp)
        except OSError:
            shutil.copyfile(data_dir / source, tmp)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
