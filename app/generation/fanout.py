"""`tdg generate --jobs N` and `--part K/N`: a range of records cut into pieces of whole blocks,
the pieces drawn by forked processes and written in order by the parent.

The bytes are those of one process however the range is cut, which is what the service's shards
rely on too (app/core/jobs/sharding.py): every block is seeded by its index (engine BlockContext),
the writers' separators and SQL batches follow global record indexes, and a file's envelope (its
header and footer) goes only with the pieces at the file's edges. So `--jobs 1`, `--jobs 8`, the
parts 1..N of `--part` joined, and a dataset of the service are the same bytes for the same seed."""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import re
import signal
import sys
from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import IO, Any, Protocol

from app.generation.errors import ParamsError
from app.generation.plan import Plan

# pieces in flight per process: being drawn, drawn and waiting for the pieces before them, or
# queued. A slow piece at the head holds back at most this many per process behind it, so the
# parent's memory is bounded by jobs x this x one piece's bytes, whatever the record count.
IN_FLIGHT_PER_JOB = 2


class WorkerLost(Exception):
    """A generation process ended without a result (killed, or out of memory)."""


@dataclass(frozen=True)
class Piece:
    """Records [start, stop) of output file `file`, with its header / footer when at its edges."""

    file: int
    start: int
    stop: int
    header: bool
    footer: bool


class Sinks(Protocol):
    """Where the pieces go: `open(i)` before file i's first piece, `close(i)` after its last."""

    def open(self, file: int) -> IO[bytes]: ...

    def close(self, file: int) -> None: ...


def default_jobs() -> int:
    """The cores this process may run on (os.process_cpu_count from Python 3.13 on)."""
    count: Callable[[], int | None] | None = getattr(os, "process_cpu_count", None)
    if count is not None:
        return count() or 1
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def parse_part(text: str) -> tuple[int, int]:
    """`K/N` as (K, N), 1 <= K <= N."""
    m = re.fullmatch(r"\s*([0-9]{1,9})\s*/\s*([0-9]{1,9})\s*", text)
    if m is None or not 1 <= int(m[1]) <= int(m[2]):
        raise ParamsError(f"--part takes K/N with 1 <= K <= N (such as 2/8), not {text!r}.")
    return int(m[1]), int(m[2])


def pieces(
    plan: Plan, start: int, stop: int, unit: int, *, header: bool = True, footer: bool = True
) -> list[Piece]:
    """[start, stop) cut at the edges of the plan's files and at global multiples of `unit` (a
    multiple of the plan's block size, so the cuts never change a byte). A piece at a file's first
    record carries its header (when `header`), one ending at its last record its footer (when
    `footer`). An empty range is one piece when it still owes an envelope (the last of several
    parts, past the blocks: the footer)."""
    ranges = plan.file_ranges()
    if start >= stop:
        last = len(ranges) - 1
        first, end = ranges[last]
        head, foot = header and start == first, footer and stop == end
        return [Piece(last, stop, stop, head, foot)] if head or foot else []
    out: list[Piece] = []
    for i, (first, end) in enumerate(ranges):
        a, b = max(first, start), min(end, stop)
        if a >= b:
            continue
        cuts = [a, *range((a // unit + 1) * unit, b, unit), b]
        out.extend(
            Piece(i, x, y, header and x == first, footer and y == end) for x, y in itertools.pairwise(cuts)
        )
    return out


def write_pieces(
    plan: Plan,
    fmt: str,
    work: Sequence[Piece],
    sinks: Sinks,
    *,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    labels: IO[bytes] | None = None,
) -> None:
    """Write the pieces in order, drawn by up to `jobs` processes. The guard checks the records it
    would check in one process: the sample of each file's whole range, not of each piece. The
    labels of invalid records (plan.negative) go to `labels`, in record order."""
    spans: dict[int, tuple[int, int]] = {}
    for p in work:
        spans[p.file] = (spans.get(p.file, (p.start, p.stop))[0], p.stop)
    samples = {file: sorted(plan.guard_rows(a, b)) for file, (a, b) in spans.items()}
    jobs = min(jobs, len(work))
    if jobs <= 1:
        _write_here(plan, fmt, work, sinks, samples, progress, labels)
    else:
        _write_forked(plan, fmt, work, sinks, samples, jobs, progress, labels)


def _write_here(
    plan: Plan,
    fmt: str,
    work: Sequence[Piece],
    sinks: Sinks,
    samples: dict[int, list[int]],
    progress: Callable[[int], None] | None,
    labels: IO[bytes] | None,
) -> None:
    for i, p in enumerate(work):
        if i == 0 or work[i - 1].file != p.file:
            stream = sinks.open(p.file)
        plan.write(
            fmt,
            stream,
            p.start,
            p.stop,
            header=p.header,
            footer=p.footer,
            progress=progress,
            guard_rows=samples[p.file],
            labels=labels,
        )
        if i + 1 == len(work) or work[i + 1].file != p.file:
            sinks.close(p.file)


# what the forked processes draw from: set in the parent just before the processes are forked, so
# each inherits the compiled plan instead of compiling it again (or unpickling it)
_WORK: tuple[Plan, str] | None = None


def _child_started() -> None:
    # Ctrl-C reaches the whole process group: the parent alone handles it (it ends the children)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:  # a child outlives no parent that was killed outright (PR_SET_PDEATHSIG, Linux)
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)
    except (OSError, AttributeError):
        pass
    if os.getppid() == 1:  # the parent died before prctl
        os._exit(1)


def _draw(start: int, stop: int, header: bool, footer: bool, rows: list[int]) -> tuple[bytes, bytes]:
    """In a child: the bytes of one piece, and the labels of its invalid records."""
    assert _WORK is not None
    plan, fmt = _WORK
    buf, labels = io.BytesIO(), io.BytesIO()
    plan.write(fmt, buf, start, stop, header=header, footer=footer, guard_rows=rows, labels=labels)
    return buf.getvalue(), labels.getvalue()


def _write_forked(
    plan: Plan,
    fmt: str,
    work: Sequence[Piece],
    sinks: Sinks,
    samples: dict[int, list[int]],
    jobs: int,
    progress: Callable[[int], None] | None,
    labels: IO[bytes] | None,
) -> None:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    global _WORK
    # a forked child flushes its copy of these buffers when it exits: they must be empty now
    sys.stdout.flush()
    sys.stderr.flush()
    _WORK = (plan, fmt)
    pool = ProcessPoolExecutor(
        max_workers=jobs, mp_context=multiprocessing.get_context("fork"), initializer=_child_started
    )
    ended = False
    try:
        window: deque[tuple[Piece, Future[tuple[bytes, bytes]]]] = deque()
        ahead = iter(work)
        stream: IO[bytes] | None = None
        for p in ahead:
            window.append((p, pool.submit(_draw, *_args(p, samples))))
            if len(window) >= jobs * IN_FLIGHT_PER_JOB:
                break
        while window:
            p, future = window.popleft()
            try:
                data, piece_labels = future.result()
            except BrokenProcessPool:
                raise WorkerLost(
                    "a generation process ended without finishing its records (killed, or out of memory?)"
                ) from None
            nxt = next(ahead, None)
            if nxt is not None:
                window.append((nxt, pool.submit(_draw, *_args(nxt, samples))))
            if stream is None:
                stream = sinks.open(p.file)
            stream.write(data)
            if labels is not None:
                labels.write(piece_labels)
            if progress is not None:
                progress(p.stop - p.start)
            if not window or window[0][0].file != p.file:
                sinks.close(p.file)
                stream = None
        ended = True
    finally:
        _WORK = None
        if not ended:  # an error or Ctrl-C: the children's work is of no use
            processes = getattr(pool, "_processes", None) or {}
            for proc in list(processes.values()):
                _terminate(proc)
        pool.shutdown(wait=True, cancel_futures=True)


def _terminate(proc: Any) -> None:
    with contextlib.suppress(OSError, ValueError):  # already gone
        proc.terminate()


def _args(p: Piece, samples: dict[int, list[int]]) -> tuple[int, int, bool, bool, list[int]]:
    sample = samples[p.file]
    rows = sample[bisect_left(sample, p.start) : bisect_left(sample, p.stop)]
    return p.start, p.stop, p.header, p.footer, rows


__all__ = [
    "Piece",
    "WorkerLost",
    "default_jobs",
    "parse_part",
    "pieces",
    "write_pieces",
]
