"""tdg serve collects garbage and hands freed heap memory back once idle after a large request
(gc.collect, then malloc_trim), not after small ones, and caps glibc's malloc arenas unless
MALLOC_ARENA_MAX is set. The server here is the real protocol (app/serving.py) under uvicorn in a
thread, serving a tiny ASGI app."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn

from app import serving
from app.serving import ConnectionLimits, ServeConfig
from tests.datasets.processes import free_port
from tests.support.waiting import eventually_sync


async def _echo_length(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    size = 0
    more = True
    while more:
        message = await receive()
        size += len(message.get("body", b""))
        more = message.get("more_body", False)
    body = str(size).encode()
    await send(
        {"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"%d" % len(body))]}
    )
    await send({"type": "http.response.body", "body": body})


@pytest.fixture
def trims(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, list[object]]]:
    calls: list[object] = []
    monkeypatch.setattr(serving, "_malloc_trim", lambda pad: calls.append(pad) or 1)
    monkeypatch.setattr(serving, "_collect_garbage", lambda: calls.append("gc") or 0)
    monkeypatch.setattr(serving, "TRIM_IDLE_SECONDS", 0.3)
    port = free_port()
    config = ServeConfig(
        _echo_length, ConnectionLimits(), host="127.0.0.1", port=port, log_level="warning", lifespan="off"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    eventually_sync(lambda: server.started, timeout=120, what="uvicorn started")
    try:
        yield f"http://127.0.0.1:{port}", calls
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_idle_after_a_large_request_garbage_is_collected_and_the_heap_trimmed_once(
    trims: tuple[str, list[object]],
) -> None:
    base, calls = trims
    with httpx.Client(base_url=base, timeout=10) as client:
        for _ in range(5):
            assert client.post("/", content=b"x" * 100).text == "100"
        time.sleep(0.6)
        assert calls == []  # small requests: nothing to give back
        for _ in range(3):  # a burst of uploads: one trim, after the last
            assert client.post("/", content=b"x" * serving.TRIM_AFTER_BODY_BYTES).text == str(
                serving.TRIM_AFTER_BODY_BYTES
            )
    eventually_sync(
        lambda: calls == ["gc", 0], timeout=30, what="a collection, then malloc_trim(0), once idle"
    )
    time.sleep(0.6)
    assert calls == ["gc", 0]


def test_malloc_arenas_are_capped_unless_configured() -> None:
    script = """
import os
from app.serving import MALLOC_ARENAS, tune_allocator
os.environ.pop("MALLOC_ARENA_MAX", None)
tune_allocator()
assert os.environ["MALLOC_ARENA_MAX"] == str(MALLOC_ARENAS)
os.environ["MALLOC_ARENA_MAX"] = "4"
tune_allocator()
assert os.environ["MALLOC_ARENA_MAX"] == "4"
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]


def test_large_blocks_stay_mapped_after_a_larger_one_was_freed() -> None:
    """After a large block is freed, glibc would serve the next ones below its size from the heap
    and keep them resident once freed (a password hash after an upload: 19 MiB)."""
    script = """
import os
from app.serving import tune_allocator
os.environ.pop("MALLOC_MMAP_THRESHOLD_", None)
tune_allocator()

def resident():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

upload = b"u" * (25 << 20)
del upload
before = resident()
hashing = b"h" * (19 << 20)
del hashing
assert resident() - before < 4 << 20, (resident() - before) >> 20
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
