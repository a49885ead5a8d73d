"""The request head limit is the documented one (TDG_HTTP_MAX_HEADER_BYTES, 64 KiB): against a
real `tdg serve`, over a raw socket, a head just under it is served and one just over it is
answered 431 and closed, however it arrives (in one write, in pieces, one huge header or many
small ones). A head that arrived whole in one read was parsed before it was counted, so up to
~128 KiB got through."""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Iterator

import pytest

from tests.datasets.processes import free_port, service_env, start_serve

LIMIT = 64 * 1024
REQUEST_LINE = b"GET /healthz HTTP/1.1\r\nHost: tdg\r\n"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    tmp = tmp_path_factory.mktemp("header-limit")
    port = free_port()
    env = service_env(f"sqlite:///{tmp / 'tdg.db'}", tmp / "data", TDG_WORKERS="1", TDG_WARM_POOL="false")
    proc = start_serve(env, tmp / "serve.log", port, timeout=120)
    try:
        yield "127.0.0.1", port
    finally:
        proc.stop()


def head_of(size: int, *, headers: int = 1) -> bytes:
    """A complete request head of exactly `size` bytes, its filler spread over `headers` headers."""
    end = b"\r\n"
    fixed = len(REQUEST_LINE) + len(end) + headers * len(b"X-Fill-000: \r\n")
    filler, extra = divmod(size - fixed, headers)
    lines = [b"X-Fill-%03d: " % i + b"a" * (filler + (extra if i == 0 else 0)) + b"\r\n" for i in range(headers)]
    head = REQUEST_LINE + b"".join(lines) + end
    assert len(head) == size
    return head


def exchange(address: tuple[str, int], head: bytes, *, pieces: int = 1) -> bytes:
    """Send `head` (in `pieces` writes) and read what the server answers until it closes or 10 s."""
    sock = socket.create_connection(address, timeout=10)
    with contextlib.suppress(OSError):  # the server may close before it has read everything
        step = -(-len(head) // pieces)
        for start in range(0, len(head), step):
            sock.sendall(head[start:start + step])
            if pieces > 1:
                time.sleep(0.01)
    received = b""
    deadline = time.monotonic() + 10
    sock.setblocking(False)
    while (left := deadline - time.monotonic()) > 0 and select.select([sock], [], [], left)[0]:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        received += chunk
        if b"\r\n\r\n" in received and received.startswith(b"HTTP/1.1 200"):
            break  # keep-alive: the answer is in, the connection stays open
    sock.close()
    return received


@pytest.mark.parametrize("headers", [1, 40])
def test_a_head_under_the_limit_is_served(server: tuple[str, int], headers: int) -> None:
    received = exchange(server, head_of(LIMIT - 1024, headers=headers))
    assert received.startswith(b"HTTP/1.1 200 "), received[:200]


@pytest.mark.parametrize(("size", "headers", "pieces"), [
    (LIMIT + 1024, 1, 1), (LIMIT + 1024, 40, 1), (96 * 1024, 1, 1), (127 * 1024, 100, 1), (LIMIT + 1024, 40, 8),
])
def test_a_head_over_the_limit_is_431(server: tuple[str, int], size: int, headers: int, pieces: int) -> None:
    received = exchange(server, head_of(size, headers=headers), pieces=pieces)
    assert received.startswith(b"HTTP/1.1 431 "), received[:200]
