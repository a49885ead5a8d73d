"""Where dataset files live and how they are written: temporary name, fsync, rename."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

from app.generation.output_formats import BY_NAME, OutputFormat

# params.invalid_rate: the labels of a dataset's invalid records, one NDJSON file (a DatasetFile
# of this format, file_index 0), downloaded as format=labels; stored beside the output formats
LABELS = "labels"
LABELS_FORMAT = OutputFormat(
    LABELS,
    BY_NAME["ndjson"].media_type,
    "labels.ndjson",
    "One label per invalid record (params.invalid_rate): record, pointer, keyword, schema_pointer, rule, detail",
)
# params.coverage: the coverage set's report (mode, records, total, covered, targets), one JSON file
# (a DatasetFile of this format, file_index 0) written with the dataset's first records, downloaded
# as format=coverage
COVERAGE = "coverage"
COVERAGE_FORMAT = OutputFormat(
    COVERAGE,
    BY_NAME["json"].media_type,
    "coverage.json",
    "The coverage set's report (params.coverage): mode, records, total, covered, targets",
)
STORED_FORMATS: dict[str, OutputFormat] = {**BY_NAME, LABELS: LABELS_FORMAT, COVERAGE: COVERAGE_FORMAT}


def file_name(fmt: str, file_index: int) -> str:
    """The name of a dataset's `file_index`-th file of `fmt` (an output format, labels or coverage)."""
    return f"data-{file_index:04d}.{STORED_FORMATS[fmt].extension}"


def is_documents(params: Mapping[str, Any] | None, fmt: str) -> bool:
    """Whether a dataset's `fmt` files are zips of XML documents, an entry per record
    (params.xml_layout documents; app/core/jobs/documents.py writes them)."""
    return fmt == "xml" and (params or {}).get("xml_layout") == "documents"


def zip_path(rel: str) -> str:
    """A zip of documents is stored under its file's name ending in .zip, as it is downloaded."""
    return rel.rsplit(".", 1)[0] + ".zip"


def dataset_dir(data_dir: Path, dataset_id: int) -> Path:
    return data_dir / "datasets" / str(dataset_id)


COPY_BUFFER = 1024 * 1024
# one kernel copy call at most this much, so the lease is renewed in between (~0.05 s each)
COPY_SLICE = 128 * 1024 * 1024
# a file being written has what it holds so far flushed to disk in the background every this
# many bytes: the kernel would otherwise start writeback only at GBs of dirty pages, and the
# closing fsync would stall the worker for the whole file (idle CPU: ~9% of a service run)
EARLY_SYNC_BYTES = 16 * 1024 * 1024


def final_file_path(dataset_id: int, fmt: str, file_index: int) -> str:
    return f"datasets/{dataset_id}/files/{file_name(fmt, file_index)}"


def rendered_file_path(dataset_id: int, fmt: str, file_index: int) -> str:
    """A format rendered on request after completion (not one of the dataset's `types`)."""
    return f"datasets/{dataset_id}/rendered/{file_name(fmt, file_index)}"


def shard_work_dir(dataset_id: int, shard_index: int, attempt: int) -> str:
    """Where one attempt of one shard writes its parts: its own folder, so a worker that lost its
    fence removes exactly what it wrote and never a successor's files."""
    return f"datasets/{dataset_id}/work/s{shard_index:04d}-a{attempt}"


class _BackgroundSync:
    """fdatasync of one descriptor in a thread (it releases the GIL), while its writer goes on.
    Its error is raised by `wait`: the kernel reports a writeback error to one sync call of a
    file description only, so the closing fsync would not see it again."""

    def __init__(self, fd: int) -> None:
        self._error: OSError | None = None
        self._thread = threading.Thread(target=self._run, args=(fd,), daemon=True)
        self._thread.start()

    def _run(self, fd: int) -> None:
        try:
            os.fdatasync(fd)
        except OSError as exc:
            self._error = exc

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def join(self) -> None:
        self._thread.join()

    def wait(self) -> None:
        self._thread.join()
        if self._error is not None:
            error, self._error = self._error, None
            raise error


class Sink(Protocol):
    """What a producer writes a file into (a HashingWriter here, an upload in an object store)."""

    def write(self, data: bytes) -> int: ...


class HashingWriter:
    """A binary stream that hashes (unless told not to) and counts what passes through it, and
    has what it wrote flushed to disk in the background as it goes (EARLY_SYNC_BYTES)."""

    def __init__(self, fh: IO[bytes], hashing: bool = True) -> None:
        self._fh = fh
        self.sha256 = hashlib.sha256() if hashing else None
        self.size = 0
        self._synced_at = 0
        self._sync: _BackgroundSync | None = None

    def write(self, data: bytes) -> int:
        self._fh.write(data)
        if self.sha256 is not None:
            self.sha256.update(data)
        self.size += len(data)
        if self.size - self._synced_at >= EARLY_SYNC_BYTES and (self._sync is None or not self._sync.running):
            if self._sync is not None:
                self._sync.wait()  # finished: raises the error it met, if any
            self._synced_at = self.size
            self._sync = _BackgroundSync(self._fh.fileno())
        return len(data)

    def join(self) -> None:
        """Until no background flush runs (before the descriptor closes, on failure too)."""
        if self._sync is not None:
            self._sync.join()

    def make_durable(self) -> None:
        if self._sync is not None:
            self._sync.wait()
        self._fh.flush()
        os.fsync(self._fh.fileno())


@dataclass(frozen=True, slots=True)
class WrittenFile:
    path: str
    size_bytes: int
    sha256: str | None  # None for a part written without a hash (it is hashed once assembled)


def _temporary_name(target: Path) -> Path:
    # a temporary name of its own: two renders of one format run at once (two downloads) and
    # shared one `.part` file, so the second rename failed with FileNotFoundError (HTTP 500)
    return target.with_name(f".{target.name}.{os.getpid()}-{uuid.uuid4().hex[:8]}.part")


def write_atomically(
    data_dir: Path, relative: str, produce: Callable[[Sink], object], *, hashing: bool = True
) -> WrittenFile:
    return write_many_atomically(data_dir, [relative], lambda streams: produce(streams[0]), hashing=hashing)[
        0
    ]


def write_many_atomically(
    data_dir: Path,
    relatives: Sequence[str],
    produce: Callable[[Sequence[Sink]], object],
    *,
    hashing: bool = True,
) -> list[WrittenFile]:
    """Several files written together (one stream each): all fsynced, then all renamed; on any
    failure none of them appears and no temporary is left."""
    targets = [data_dir / relative for relative in relatives]
    temporaries = [_temporary_name(target) for target in targets]
    try:
        with contextlib.ExitStack() as stack:
            for target in targets:
                target.parent.mkdir(parents=True, exist_ok=True)
            streams = []
            for tmp in temporaries:
                stream = HashingWriter(stack.enter_context(open(tmp, "wb", buffering=1024 * 1024)), hashing)
                stack.callback(stream.join)  # runs before the file closes, on failure too
                streams.append(stream)
            produce(streams)
            for stream in streams:
                stream.make_durable()
        for tmp, target in zip(temporaries, targets, strict=True):
            os.replace(tmp, target)
    except BaseException:
        for tmp in temporaries:
            tmp.unlink(missing_ok=True)
        raise
    return [
        WrittenFile(relative, stream.size, stream.sha256.hexdigest() if stream.sha256 is not None else None)
        for relative, stream in zip(relatives, streams, strict=True)
    ]


def concatenate_atomically(
    data_dir: Path, sources: Sequence[str], relative: str, beat: Callable[[], object]
) -> WrittenFile:
    """One file from parts, in order: copied inside the kernel (copy_file_range: no pass through
    Python, ~8x faster than read/write here), then hashed in one read pass (from the page cache)
    while it is flushed to disk, fsynced and renamed into place. `beat` is called between slices
    (lease renewal)."""
    target = data_dir / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temporary_name(target)
    try:
        digest = hashlib.sha256()
        size = 0
        with open(tmp, "wb") as out:
            for source in sources:
                with open(data_dir / source, "rb") as part:
                    _copy(part, out, beat)
            out.flush()
            # the file goes to disk while it is hashed from the page cache, not before
            sync = _BackgroundSync(out.fileno())
            try:
                with open(tmp, "rb") as fh:
                    while chunk := fh.read(COPY_BUFFER):
                        digest.update(chunk)
                        size += len(chunk)
                        beat()
            finally:
                sync.join()
            sync.wait()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return WrittenFile(relative, size, digest.hexdigest())


def _copy(src: IO[bytes], dst: IO[bytes], beat: Callable[[], object]) -> None:
    dst.flush()  # the kernel writes at the descriptor's position: nothing may wait in Python's buffer
    remaining = os.fstat(src.fileno()).st_size
    while remaining > 0:
        try:
            copied = os.copy_file_range(src.fileno(), dst.fileno(), min(remaining, COPY_SLICE))
        except (AttributeError, OSError) as exc:
            # not Linux, or a filesystem pair the kernel cannot copy between: plain copy of the rest
            if isinstance(exc, OSError) and exc.errno not in (
                errno.EXDEV,
                errno.ENOSYS,
                errno.EINVAL,
                errno.EOPNOTSUPP,
                errno.EBADF,
            ):
                raise
            shutil.copyfileobj(src, dst, COPY_BUFFER)
            return
        if copied == 0:
            raise OSError(errno.EIO, "a part ended before its recorded size")
        remaining -= copied
        beat()


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
