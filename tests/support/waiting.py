"""One way to wait in tests: poll a probe until its value satisfies a condition, instead of
sleeping a fixed time. Polls start fast (10 ms) and back off to `interval`, so a condition that
is already true costs nothing and a slow one does not spin the two shared cores. A timeout is a
deadline, not a wait: generous (DEADLINE by default), since a loaded machine with another xdist
worker beside it may run a process many times slower than an idle one."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

FIRST_INTERVAL = 0.01
DEADLINE = 120.0


def _truthy(value: Any) -> bool:
    return bool(value)


def _delays(interval: float) -> Iterator[float]:
    delay = min(FIRST_INTERVAL, interval)
    while True:
        yield delay
        delay = min(delay * 1.5, interval)


def _timed_out(what: str, timeout: float, last: Any) -> AssertionError:
    return AssertionError(f"{what or 'condition'} not met within {timeout} s; last value: {last!r}"[:4000])


async def eventually(probe: Callable[[], Awaitable[T]], until: Callable[[T], bool] = _truthy, *,
                     timeout: float = DEADLINE, interval: float = 0.1, what: str = "") -> T:
    """Await `probe()` until `until(value)` holds and return that value; fail with the last value
    after `timeout` seconds. Exceptions from the probe (an assertion on a status code) propagate."""
    deadline = time.monotonic() + timeout
    for delay in _delays(interval):
        value = await probe()
        if until(value):
            return value
        if time.monotonic() >= deadline:
            raise _timed_out(what, timeout, value)
        await asyncio.sleep(delay)
    raise AssertionError("unreachable")


def eventually_sync(probe: Callable[[], T], until: Callable[[T], bool] = _truthy, *,
                    timeout: float = DEADLINE, interval: float = 0.1, what: str = "") -> T:
    """`eventually` for code outside an event loop (subprocesses, threads, plain sockets)."""
    deadline = time.monotonic() + timeout
    for delay in _delays(interval):
        value = probe()
        if until(value):
            return value
        if time.monotonic() >= deadline:
            raise _timed_out(what, timeout, value)
        time.sleep(delay)
    raise AssertionError("unreachable")
