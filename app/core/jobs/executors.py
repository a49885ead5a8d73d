"""Where generation runs: a local process pool inside `tdg serve` (the embedded default) or
Celery workers (`tdg worker`) when TDG_BROKER_URL is set. Both run `worker_run.run_shard`."""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from app.core.jobs.heartbeat import lease_keeper
from app.core.jobs.rendering import render_format
from app.core.jobs.worker_run import connect_ahead, run_shard, warm_up
from app.core.processes import process_context
from app.core.settings import Settings

log = logging.getLogger("tdg.jobs")
# generation yields the CPU to the API: with as many pool processes as cores, requests waited
# behind them (p99 of a dataset poll in the hundreds of ms). Not SCHED_IDLE: under any other
# sustained load (a busy API, a neighbour process) it starved the pool outright, leases lapsed
# and datasets sat `running` at 0% for minutes.
WORKER_NICENESS = 19


class Executor(Protocol):
    def submit(self, shard_id: int, attempt: int) -> None: ...

    def free_slots(self) -> int: ...

    def shutdown(self) -> None: ...


def settings_payload(settings: Settings) -> dict[str, Any]:
    return settings.model_dump(mode="json")


def _init_worker(settings: dict[str, Any] | None) -> None:
    # the lease keeper's thread first, at the server's priority: renewals must not starve with
    # the generation (a nice value is a thread's on Linux, inherited by the threads it starts)
    lease_keeper()
    os.nice(WORKER_NICENESS)
    # a failing initializer breaks the whole pool: a warm-up that fails leaves the work to the shard
    try:
        warm_up()
        if settings is not None:
            connect_ahead(settings)
    except Exception:
        log.exception("a worker process could not warm up; its first shard will")


class RespawningPool:
    """A process pool that replaces itself once broken. A pool whose child died (kill -9,
    the OOM killer) refuses every later submit, so one lost process stopped all generation."""

    def __init__(self, size: int, settings: dict[str, Any] | None = None) -> None:
        self.size = size
        self.settings = settings  # when given, each process opens its database connection at start
        self.pool = self._new()

    def _new(self) -> ProcessPoolExecutor:
        # forked from the fork server, never from the server (its event loop and connection pools)
        return ProcessPoolExecutor(
            max_workers=self.size,
            mp_context=process_context(),
            initializer=_init_worker,
            initargs=(self.settings,),
        )

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        try:
            return self.pool.submit(fn, *args)
        except BrokenProcessPool:
            log.warning("a worker process died; starting a fresh process pool")
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = self._new()
            return self.pool.submit(fn, *args)

    def start_all(self) -> None:
        """Spawn every process now: a process starts on demand, on a submit with none idle."""
        for _ in range(self.size):
            self.submit(_started)

    def shutdown(self) -> None:
        self.pool.shutdown()


def _started() -> int:
    return os.getpid()


class LocalPoolExecutor:
    """A process pool: generation never runs on the server's event loop."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.size = settings.workers
        self.pool = RespawningPool(self.size, settings_payload(settings))
        if settings.warm_pool:
            self.pool.start_all()
        # futures, not shard ids: a stale run of a shard finishing must not free a slot that a
        # newer run of the same shard still occupies
        self.in_flight: set[Future[str]] = set()
        # told when a slot frees up, so the next queued shard starts now rather than at the
        # dispatcher's next tick (a second per shard, idle, otherwise)
        self.on_slot_free: Callable[[], None] | None = None

    def submit(self, shard_id: int, attempt: int) -> None:
        future = self.pool.submit(run_shard, settings_payload(self.settings), shard_id, attempt)
        self.in_flight.add(future)
        future.add_done_callback(functools.partial(self._done, shard_id))

    def _done(self, shard_id: int, future: Future[str]) -> None:
        self.in_flight.discard(future)
        if self.on_slot_free is not None:
            self.on_slot_free()
        exc = future.exception()
        if exc is not None:
            # the row's lease lapses and the reaper re-queues it; nothing is lost
            log.error("shard %s: worker process failed: %r", shard_id, exc)

    def free_slots(self) -> int:
        return max(0, self.size - len(self.in_flight))

    def render(self, dataset_id: int, fmt: str) -> Future[list[dict[str, Any]]]:
        return self.pool.submit(render_format, settings_payload(self.settings), dataset_id, fmt)

    def shutdown(self) -> None:
        self.pool.shutdown()


class CeleryExecutor:
    """Hands the work to Celery; capacity is the workers' business (prefetch 1, acks late)."""

    def __init__(self, settings: Settings) -> None:
        # Celery loads only when a broker is configured (celery_app imports nothing from here)
        from app.core.jobs.celery_app import celery_for

        self.settings = settings
        self.app = celery_for(settings)
        self.render_pool = RespawningPool(1)

    def submit(self, shard_id: int, attempt: int) -> None:
        self.app.send_task("tdg.generate_shard", args=[shard_id, attempt], queue="tdg")

    def free_slots(self) -> int:
        return 1_000_000

    def render(self, dataset_id: int, fmt: str) -> Future[list[dict[str, Any]]]:
        return self.render_pool.submit(render_format, settings_payload(self.settings), dataset_id, fmt)

    def shutdown(self) -> None:
        self.render_pool.shutdown()


def make_executor(settings: Settings) -> LocalPoolExecutor | CeleryExecutor:
    return CeleryExecutor(settings) if settings.broker_url else LocalPoolExecutor(settings)
