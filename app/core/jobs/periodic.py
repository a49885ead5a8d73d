"""The background loops of `tdg serve` (dataset dispatcher, webhook dispatcher, retention purge)
share one shape: run `tick` now and then after every interval or wake-up, log and survive
failures, stop on cancellation."""

from __future__ import annotations

import asyncio
import contextlib
import logging

log = logging.getLogger("tdg.periodic")


class PeriodicTask:
    name = "tdg-periodic"

    def __init__(self) -> None:
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._loop_ref: asyncio.AbstractEventLoop | None = None

    def interval(self) -> float:
        raise NotImplementedError

    async def tick(self) -> None:
        raise NotImplementedError

    def wake(self) -> None:
        """Run the next tick now (e.g. a dataset was just queued)."""
        self._wake.set()

    def wake_threadsafe(self) -> None:
        """`wake` from another thread (an executor's completion callback)."""
        loop = self._loop_ref
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile (shutting down)
                loop.call_soon_threadsafe(self._wake.set)

    def start(self) -> None:
        self._loop_ref = asyncio.get_running_loop()
        self._task = asyncio.create_task(self._loop(), name=self.name)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _loop(self) -> None:
        while True:
            try:
                await self.tick()
            except Exception:
                log.exception("%s: tick failed", self.name)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self.interval())
            self._wake.clear()
