"""The listening sockets of `tdg serve --workers N`: one per server process, in one SO_REUSEPORT group.

uvicorn binds one socket and hands it to every worker. Each worker's event loop then accepts, at
each wake-up, as many waiting connections as the backlog allows (asyncio's accept loop), so
whichever worker wakes first takes a burst of new connections nearly whole: 50 clients opening
their keep-alive connections at once were split 46 to 4 between two workers. The busy worker's
clients then wait behind 45 others while the other worker idles, which is the p99 of
benchmarks/api_throughput.py at `--server-workers 2`.

With SO_REUSEPORT (Linux, the BSDs) each worker listens on a socket of its own bound to the same
address, and the kernel spreads incoming connections over the group's listening sockets by a
hash of each connection's addresses, so each worker gets its share whichever is awake. The
supervising process binds a socket of the group too, to claim the address and fail at once if it
is taken, but never listens on it: a socket that does not listen is given no connection.

A worker's socket is made in the worker: `ReusePortAddress` travels to it in place of a socket
(uvicorn pickles the sockets it passes to its spawned workers) and unpickles as a new socket
bound to the address. Where SO_REUSEPORT is missing, the one shared socket is used as before.

When a worker dies, the connections waiting in its socket's queue (accepted by the kernel, not
yet by the worker) are reset, as its requests in progress are; with one shared socket another
worker would have taken them. Linux 5.14+ moves them to another socket of the group instead
when `net.ipv4.tcp_migrate_req` is 1 (a setting of the host, off by default).
"""

from __future__ import annotations

import logging
import socket
import sys
from typing import Any

from uvicorn.config import STARTUP_FAILURE, Config

logger = logging.getLogger("uvicorn.error")

REUSE_PORT: int | None = getattr(socket, "SO_REUSEPORT", None)


def _reuse_port_socket(family: int, address: tuple[Any, ...]) -> socket.socket:
    sock = socket.socket(family=family)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    assert REUSE_PORT is not None
    sock.setsockopt(socket.SOL_SOCKET, REUSE_PORT, 1)
    sock.bind(address)
    return sock


class ReusePortAddress:
    """An address standing in for a listening socket on its way to a worker process; unpickled
    there, it is a socket of that process's own, bound to the address with SO_REUSEPORT."""

    def __init__(self, family: int, address: tuple[Any, ...]) -> None:
        self.family = family
        self.address = address

    def __reduce__(self) -> tuple[Any, tuple[int, tuple[Any, ...]]]:
        return _reuse_port_socket, (self.family, self.address)


def worker_sockets(config: Config) -> tuple[list[Any], socket.socket]:
    """What each worker is handed (uvicorn's `sockets`), and the socket the supervisor keeps open
    until it stops. With SO_REUSEPORT: the address, for each worker to bind a socket of its own,
    and a bound socket that never listens; else uvicorn's one shared socket, for both."""
    if REUSE_PORT is None or config.uds is not None or config.fd is not None:
        shared = config.bind_socket()
        return [shared], shared
    family = socket.AF_INET6 if config.host and ":" in config.host else socket.AF_INET
    try:
        claim = _reuse_port_socket(family, (config.host, config.port))
    except OSError as exc:
        logger.error(exc)
        sys.exit(STARTUP_FAILURE)
    host, port = claim.getsockname()[:2]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    logger.info("Uvicorn running on http://%s:%d (Press CTRL+C to quit)", shown, port)
    return [ReusePortAddress(family, claim.getsockname())], claim
