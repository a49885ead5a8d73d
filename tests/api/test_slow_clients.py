"""Slow and greedy clients against a real `tdg serve` (a subprocess on a free loopback port):
connections that trickle their headers, or send nothing, are closed at the header deadline while
an ordinary client keeps getting answers; an idle keep-alive connection closes after the
keep-alive timeout; past the connection cap a new connection is answered 503; oversized headers
get 431. The limits are short here (2 s to send headers, 1 s keep-alive, 40 connections), set
through the environment and, for the cap, the `--max-connections` option."""

from __future__ import annotations

import contextlib
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

from tests.datasets.processes import free_port, service_env, start_serve

HEADER_TIMEOUT = 2.0
KEEP_ALIVE = 1
MAX_CONNECTIONS = 40
TRICKLERS = 30


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    tmp = tmp_path_factory.mktemp("slow-clients")
    port = free_port()
    env = service_env(
        f"sqlite:///{tmp / 'tdg.db'}",
        tmp / "data",
        TDG_WORKERS="1",
        TDG_WARM_POOL="false",
        TDG_HTTP_HEADER_TIMEOUT_SECONDS=str(HEADER_TIMEOUT),
        TDG_HTTP_KEEP_ALIVE_SECONDS=str(KEEP_ALIVE),
    )
    proc = start_serve(env, tmp / "serve.log", port, "--max-connections", str(MAX_CONNECTIONS), timeout=60)
    try:
        yield "127.0.0.1", port
    finally:
        proc.stop()


def _connect(address: tuple[str, int]) -> socket.socket:
    sock = socket.create_connection(address, timeout=5)
    sock.setblocking(False)
    return sock


def _read_until_closed(sock: socket.socket, timeout: float) -> tuple[bytes, float | None]:
    """Everything the server sends until it closes the connection, and when it closed (None:
    still open after `timeout` seconds)."""
    received = b""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        if select.select([sock], [], [], left)[0]:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                return received, time.monotonic()
            if not chunk:
                return received, time.monotonic()
            received += chunk
    return received, None


def test_trickled_headers_are_cut_off_at_the_deadline_while_others_are_served(
    server: tuple[str, int],
) -> None:
    base = f"http://{server[0]}:{server[1]}"
    opened = time.monotonic()
    socks = [_connect(server) for _ in range(TRICKLERS)]
    for sock in socks:
        sock.send(b"GET /healthz HTTP/1.1\r\nHost: tdg\r\n")
    open_socks = dict.fromkeys(socks, b"")
    closed_after: list[float] = []
    answered: list[float] = []
    stop = opened + HEADER_TIMEOUT + 6
    while open_socks and time.monotonic() < stop:
        # one more header line a second from every slow client: each arrives well within any
        # per-read timeout, and the headers never end
        for sock in list(open_socks):
            with contextlib.suppress(OSError):
                sock.send(b"X-Slow: 1\r\n")
        started = time.monotonic()
        r = httpx.get(base + "/healthz", timeout=5)
        assert r.status_code == 200, r.text
        answered.append(time.monotonic() - started)
        wait_until = time.monotonic() + 1.0
        while open_socks and (left := wait_until - time.monotonic()) > 0:
            for sock in select.select(list(open_socks), [], [], left)[0]:
                try:
                    chunk = sock.recv(65536)
                except ConnectionResetError:
                    chunk = b""
                if chunk:
                    open_socks[sock] += chunk
                else:
                    closed_after.append(time.monotonic() - opened)
                    received = open_socks.pop(sock)
                    assert received.startswith(b"HTTP/1.1 408 "), received[:200]
    for sock in socks:
        sock.close()
    assert not open_socks, (
        f"{len(open_socks)} of {TRICKLERS} trickling connections still open after {stop - opened:.0f} s"
    )
    assert max(closed_after) < HEADER_TIMEOUT + 3, closed_after
    assert min(closed_after) >= HEADER_TIMEOUT - 0.1, closed_after
    assert max(answered) < 2.0, answered


def test_a_silent_connection_is_closed_at_the_deadline(server: tuple[str, int]) -> None:
    sock = _connect(server)
    opened = time.monotonic()
    received, closed = _read_until_closed(sock, HEADER_TIMEOUT + 5)
    sock.close()
    assert closed is not None, "a connection that sent nothing was kept open"
    assert HEADER_TIMEOUT - 0.1 <= closed - opened < HEADER_TIMEOUT + 3
    assert received == b""  # nothing was asked: closed without an answer


def test_an_idle_keep_alive_connection_is_closed(server: tuple[str, int]) -> None:
    sock = _connect(server)
    sock.send(b"GET /healthz HTTP/1.1\r\nHost: tdg\r\n\r\n")
    deadline = time.monotonic() + 5
    response = b""
    while b"\r\n\r\n" not in response and time.monotonic() < deadline:
        select.select([sock], [], [], 1)
        response += sock.recv(65536)
    assert response.startswith(b"HTTP/1.1 200 "), response[:200]
    answered = time.monotonic()
    _rest, closed = _read_until_closed(sock, KEEP_ALIVE + 5)
    sock.close()
    assert closed is not None, "an idle keep-alive connection was kept open"
    assert closed - answered < KEEP_ALIVE + 1.5, f"closed {closed - answered:.1f} s after the answer"


def test_connections_past_the_cap_are_answered_503_and_the_cap_frees_up(server: tuple[str, int]) -> None:
    base = f"http://{server[0]}:{server[1]}"
    held = [_connect(server) for _ in range(MAX_CONNECTIONS)]
    opened = time.monotonic()
    try:
        r = httpx.get(base + "/healthz", timeout=5)
        assert time.monotonic() - opened < HEADER_TIMEOUT, (
            "too slow to test the cap: the held connections expired"
        )
        assert r.status_code == 503, r.text
        assert r.headers["retry-after"] == "1" and r.headers["connection"] == "close"
        assert "too many open connections" in r.json()["detail"]
        # the held connections (silent) are closed at the header deadline: the cap frees up
        for sock in held:
            _, closed = _read_until_closed(sock, HEADER_TIMEOUT + 5)
            assert closed is not None
        assert httpx.get(base + "/healthz", timeout=5).status_code == 200
    finally:
        for sock in held:
            sock.close()


def test_oversized_headers_get_431(server: tuple[str, int]) -> None:
    sock = _connect(server)
    sock.setblocking(True)
    sock.settimeout(5)
    with contextlib.suppress(OSError):  # the server may close before it has read everything
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: tdg\r\n" + b"X-Big: " + b"a" * 200_000 + b"\r\n\r\n")
    sock.setblocking(False)
    received, closed = _read_until_closed(sock, 5)
    sock.close()
    assert received.startswith(b"HTTP/1.1 431 "), received[:200]
    assert closed is not None


# a file the server sends in many chunks (FileResponse): a client that does not read stalls it
LARGE_FILE = b"/api/reference/static/swagger-ui-bundle.js"


def _most_a_socket_buffers_for_sending() -> int:
    """The most a TCP socket buffers for sending (the kernel grows it up to tcp_wmem's maximum)."""
    try:
        with open("/proc/sys/net/ipv4/tcp_wmem") as sysctl:
            return int(sysctl.read().split()[2])
    except (OSError, IndexError, ValueError):
        return 16 * 1024 * 1024


@pytest.mark.parametrize("refusal", ["too large", "late"])
def test_a_pipelined_request_refused_while_the_one_before_is_answered_is_refused_after_that_answer(
    server: tuple[str, int], refusal: str
) -> None:
    """HTTP/1.1 answers in order: the earlier responses arrive whole, then the refusal, then the
    close (before, a 431 was written into the middle of an earlier response, and a late head got
    no answer)."""
    size = len(httpx.get(f"http://{server[0]}:{server[1]}{LARGE_FILE.decode()}", timeout=10).content)
    # more than the server's socket can buffer: the last download waits for this client to read
    downloads = (_most_a_socket_buffers_for_sending() + 2 * 1024 * 1024) // size + 1
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(5)
    sock.connect(server)
    sock.sendall((b"GET " + LARGE_FILE + b" HTTP/1.1\r\nHost: tdg\r\n\r\n") * downloads)
    time.sleep(1.0)  # the last download has begun and is stalled
    if refusal == "too large":
        # over the 64 KiB cap and not yet ended, small enough to fit the socket buffers once the
        # server stops reading
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: tdg\r\nX-Big: " + b"a" * 100_000)
        time.sleep(0.5)
    else:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: tdg\r\n")
        time.sleep(HEADER_TIMEOUT + 1)
    sock.setblocking(False)
    received, closed = _read_until_closed(sock, 30)
    sock.close()
    rest = received
    for _ in range(downloads):
        head, _, rest = rest.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200 "), head[:200]
        assert b"content-length: %d" % size in head.lower(), head
        rest = rest[size:]
    expected = b"HTTP/1.1 431 " if refusal == "too large" else b"HTTP/1.1 408 "
    assert rest.startswith(expected), rest[:200]
    assert b"connection: close" in rest
    assert closed is not None


def test_the_cap_fits_under_the_open_file_limit() -> None:
    """A cap above the process's open-file limit would not protect it: the soft limit is raised
    towards the hard one, and when that is not enough the cap is lowered (in a child process:
    limits lowered here could not be raised back)."""
    script = """
import resource
from app.serving import DESCRIPTOR_RESERVE, ConnectionLimits, ServeConfig, fit_descriptor_limit
_, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (300, hard))
config = ServeConfig("app.main:create_app", ConnectionLimits(max_connections=1000))
fit_descriptor_limit(config)
assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == 1000 + DESCRIPTOR_RESERVE
assert config.limits.max_connections == 1000
resource.setrlimit(resource.RLIMIT_NOFILE, (300, 400))
config = ServeConfig("app.main:create_app", ConnectionLimits(max_connections=1000))
fit_descriptor_limit(config)
assert resource.getrlimit(resource.RLIMIT_NOFILE)[0] == 400
assert config.limits.max_connections == 400 - DESCRIPTOR_RESERVE
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
