"""`tdg serve --workers 2` spreads new connections over its processes (app/listening.py): each
worker listens on a socket of its own in one SO_REUSEPORT group, the supervisor's socket holds
the address without listening, a burst of keep-alive connections is split between the workers
rather than taken nearly whole by the first to wake (46 to 4 with one shared socket), and a
worker killed -9 is replaced by one that binds its own socket again."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
from collections import Counter
from pathlib import Path

import httpx
import pytest

from tests.datasets.processes import free_port, service_env, start_serve
from tests.support.waiting import eventually_sync

pytestmark = pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT"), reason="SO_REUSEPORT is Linux's and the BSDs'")

CONNECTIONS = 60
WAIT = 300.0
LISTEN = "0A"  # TCP_LISTEN in /proc/net/tcp


def _listening_inodes(port: int) -> set[str]:
    """Inodes of the sockets listening on 127.0.0.1:`port`."""
    found = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, state, inode = fields[1], fields[3], fields[9]
        if state == LISTEN and int(local.rsplit(":", 1)[1], 16) == port:
            found.add(inode)
    return found


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    return inodes


async def _served_by(port: int) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        head = await reader.readuntil(b"\r\n\r\n")
    finally:
        writer.close()
    (line,) = [h for h in head.split(b"\r\n") if h.lower().startswith(b"x-served-by:")]
    return int(line.split(b":", 1)[1])


async def _burst(port: int) -> Counter[int]:
    """CONNECTIONS connections opened at once, each kept open until all have been answered."""
    return Counter(await asyncio.gather(*(_served_by(port) for _ in range(CONNECTIONS))))


def _workers(port: int, count: int, *, resets: bool = False) -> set[int]:
    """The processes answering new connections, until `count` of them have. With `resets`, a
    connection reset is let pass: one that was waiting in a killed worker's queue is reset (as
    its requests in progress are), unless net.ipv4.tcp_migrate_req moves it to another socket."""
    seen: set[int] = set()

    def answered() -> set[int]:
        try:
            r = httpx.get(f"http://127.0.0.1:{port}/healthz", headers={"Connection": "close"}, timeout=5)
        except httpx.TransportError:
            if not resets:
                raise
            return seen
        seen.add(int(r.headers["x-served-by"]))
        return seen

    return eventually_sync(answered, lambda s: len(s) >= count, timeout=WAIT, interval=0.05,
                           what=f"requests answered by {count} processes")


def test_each_worker_listens_on_its_own_socket_and_gets_its_share(tmp_path: Path) -> None:
    env = service_env(f"sqlite:///{tmp_path / 'tdg.db'}", tmp_path / "data", TDG_WARM_POOL="false")
    port = free_port()
    proc = start_serve(env, tmp_path / "serve.log", port, "--workers", "2", timeout=WAIT)
    try:
        workers = _workers(port, 2)

        # two listening sockets on the port, one in each worker; the supervisor listens on none
        listening = _listening_inodes(port)
        assert len(listening) == 2, listening
        assert [len(_socket_inodes(pid) & listening) for pid in sorted(workers)] == [1, 1]
        assert not _socket_inodes(proc.pid) & listening

        # a burst of connections is split: neither worker gets under a fifth of them (a fair
        # split's chance of that is about 1 in 100,000 per burst)
        for _ in range(3):
            split = asyncio.run(_burst(port))
            assert set(split) == workers and min(split.values()) >= CONNECTIONS // 5, split

        # a worker killed -9 is replaced, and its replacement listens on a socket of its own
        victim = min(workers)
        os.kill(victim, signal.SIGKILL)
        now = _workers(port, 2, resets=True)  # answered since: the survivor and the replacement
        assert victim not in now
        listening = eventually_sync(lambda: _listening_inodes(port), lambda inodes: len(inodes) == 2,
                                    timeout=WAIT, interval=0.2, what="two listening sockets again")
        assert [len(_socket_inodes(pid) & listening) for pid in sorted(now)] == [1, 1]
        assert "Traceback" not in proc.output(), proc.output()[-3000:]
    finally:
        proc.stop()
