"""Loopback ports for the servers tests start (tdg serve, uvicorn, moto) and for addresses that
must refuse connections, which no other test process can be handed at the same time.

A port from bind(("127.0.0.1", 0)) is free only at that moment: another xdist worker, another
pytest run on the machine, or any outgoing connection (the kernel takes those ephemeral ports
from the same range) could take it before the server binds it. Here a port comes from below the
ephemeral range (ip_local_port_range starts at 32768), so no outgoing connection uses it, and is
claimed with an exclusive lock on a file named after it that this process holds until it exits,
so no other process using this module is handed it while this one may still use it."""

from __future__ import annotations

import fcntl
import os
import random
import socket
import tempfile
from pathlib import Path

FIRST, LAST = 20_000, 32_000
_CLAIMS = Path(tempfile.gettempdir()) / "tdg-test-ports"
_held: dict[int, int] = {}  # port -> the descriptor whose lock claims it


def _claim(port: int) -> bool:
    fd = os.open(_CLAIMS / f"{port}.lock", os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return False
    _held[port] = fd
    return True


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A loopback port nobody listens on, claimed for this process for the rest of its life."""
    _CLAIMS.mkdir(exist_ok=True)
    ports = list(range(FIRST, LAST))
    random.Random().shuffle(ports)  # its own generator: tests that seed `random` are left alone
    for port in ports:
        if port in _held or not _claim(port):
            continue
        if _bindable(port):
            return port
        # in use by something that does not claim ports here: keep the claim, skip the port
    raise RuntimeError(f"no free loopback port between {FIRST} and {LAST}")
