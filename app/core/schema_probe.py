"""The problems-at-upload probe (app/generation/problems.py), and the coverage sets a request waits
for (coverage_report), run in processes of its own, never in the API process: it parses the schema, builds its field tree and record validator, compiles the
record and writes a probe block, which took the server from 151 to 348 MB RSS after 40 x 1 MB
uploads (memory a process keeps once it has held it). Only the small problems list comes back.

Not the generation pool: a probe waits for nobody's dataset (the upload answer waits for it), and
Celery deployments have no local pool. The pool here starts on the first probe, is replaced after
TASKS_PER_POOL probes (what its processes hold from large schemas goes with them) and is shut down
once IDLE_SECONDS pass with nothing to probe, so an idle server has no probe process at all (the
fork server its processes are forked from stays: 136 MiB of the engine, imported and warm, no
schema's memory). A
process that dies (the OOM killer) breaks only the probes it had; the next one starts a new pool."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from app.core.errors import DomainError
from app.core.generation import coverage_set, domain_errors, load_schema, root_problems
from app.core.processes import process_context

PROCESSES = max(1, min(2, os.cpu_count() or 1))
TASKS_PER_POOL = 16
IDLE_SECONDS = 5.0


def find_problems(
    raw: bytes, filename: str | None, root: str | None
) -> tuple[list[dict[str, Any]], str | None]:
    """In a probe process: `(problems, None)` for the root (None: the default) of the schema file,
    or `([], refusal)` when the engine refuses the schema or the root (a sentence for a 422)."""
    try:
        with domain_errors():
            return root_problems(load_schema(raw, filename), root), None
    except DomainError as exc:
        return [], exc.detail
    except RecursionError:
        # a schema nested deeper than the loader's own checks catch (a regex of a few hundred
        # nested groups is parsed, then overflows the stack inside jsonschema's pattern check)
        return [], "The schema is nested too deeply to be checked (a pattern's groups or the schema's levels)."


def coverage_report(
    raw: bytes,
    filename: str | None,
    rules: list[dict[str, Any]],
    params: dict[str, Any],
    mode: str,
    record_count: int,
    seconds: float,
) -> tuple[dict[str, Any] | None, tuple[str, str, str | None] | None]:
    """In a probe process: `(report, None)` of the coverage set these inputs give (built within
    `seconds`), or `(None, (detail, code, field))` of the 422 the engine refuses it with."""
    try:
        with domain_errors():
            loaded = load_schema(raw, filename)
            cover = coverage_set(
                lambda: loaded, rules, params, mode=mode, record_count=record_count, seconds=seconds
            )
            return cover.report(), None
    except DomainError as exc:
        return None, (exc.detail, exc.code.value, exc.field)
    except RecursionError:
        return None, ("The schema is nested too deeply for a coverage set.", "generation_failed", None)


class ProbePool:
    """A process pool (forked from the fork server: app/core/processes.py) started on demand, replaced after `tasks_per_pool` submits and shut
    down after `idle_seconds` with nothing in flight."""

    def __init__(
        self, size: int = PROCESSES, tasks_per_pool: int = TASKS_PER_POOL, idle_seconds: float = IDLE_SECONDS
    ) -> None:
        self.size, self.tasks_per_pool, self.idle_seconds = size, tasks_per_pool, idle_seconds
        self._lock = threading.Lock()
        self._pool: ProcessPoolExecutor | None = None
        self._submitted = 0  # to the current pool
        self._in_flight = 0  # in every pool
        self._idle_timer: threading.Timer | None = None

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        """`fn(*args)` in a probe process. A process that dies fails its future with
        BrokenProcessPool; the pool is then dropped and the next submit starts a fresh one."""
        with self._lock:
            if self._idle_timer is not None:
                self._idle_timer.cancel()
                self._idle_timer = None
            if self._pool is not None and self._submitted >= self.tasks_per_pool:
                self._pool.shutdown(wait=False)  # its processes finish what they have, then exit
                self._pool = None
            if self._pool is None:
                self._pool = ProcessPoolExecutor(max_workers=self.size, mp_context=process_context())
                self._submitted = 0
            pool = self._pool
            self._submitted += 1
            self._in_flight += 1
        try:
            future = pool.submit(fn, *args)
        except BaseException:
            self._finished(pool, broken=True)
            raise
        future.add_done_callback(lambda done: self._finished(pool, broken=_broken(done)))
        return future

    @property
    def running(self) -> bool:
        with self._lock:
            return self._pool is not None

    def _finished(self, pool: ProcessPoolExecutor, *, broken: bool) -> None:
        with self._lock:
            self._in_flight -= 1
            if broken and self._pool is pool:
                self._pool = None
                pool.shutdown(wait=False, cancel_futures=True)
            if self._in_flight == 0 and self._pool is not None:
                timer = threading.Timer(self.idle_seconds, self._close_if_idle)
                timer.daemon = True
                self._idle_timer = timer
                timer.start()

    def _close_if_idle(self) -> None:
        with self._lock:
            if self._in_flight or self._pool is None:
                return
            pool, self._pool, self._idle_timer = self._pool, None, None
        pool.shutdown(wait=True)

    def shutdown(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
            if self._idle_timer is not None:
                self._idle_timer.cancel()
                self._idle_timer = None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _broken(future: Future[Any]) -> bool:
    return not future.cancelled() and isinstance(future.exception(), BrokenProcessPool)


_pool: ProbePool | None = None
_pool_lock = threading.Lock()


def probe_pool() -> ProbePool:
    """This process's probe pool."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ProbePool()
        return _pool


def _reset_after_fork() -> None:
    # a forked child (a Celery prefork worker) must not share the parent's pool or its locks
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_reset_after_fork)
