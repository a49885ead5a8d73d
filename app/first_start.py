"""The banner `tdg serve` ends its first start with, when it generated the SuperUser's password:
the address, the user, the password and how to choose one's own. It is printed on standard error
once the server accepts connections, so it comes after the start-up output rather than among it.
"""

from __future__ import annotations

import socket
import sys
import threading
import time
from typing import TextIO

from app.core.auth.bootstrap import generated_admin

# how long the announcer waits for the server to listen (a first start applies every migration)
LISTEN_WAIT_SECONDS = 600.0
# after the port accepts, uvicorn still logs that it is running: the banner comes after that line
SETTLE_SECONDS = 0.3


def banner(url: str, username: str, password: str) -> str:
    lines = [
        f"tdg is ready at {url}",
        f"Sign in as {username} with the generated password: {password}",
        "It is shown on this first start only. To choose your own:",
        f"  tdg user reset-password {username}",
        "  (or set TDG_ADMIN_PASSWORD before the first start)",
    ]
    rule = "=" * max(len(line) for line in lines)
    return "\n".join(["", rule, *lines, rule, ""])


def _connect_host(host: str) -> str:
    """The address to try for `host`: a wildcard bind is reached on loopback."""
    if host in ("", "0.0.0.0"):
        return "127.0.0.1"
    if host == "::":
        return "::1"
    return host


def _listening(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


def announce_when_listening(
    host: str, port: int, url: str, out: TextIO | None = None, wait: float = LISTEN_WAIT_SECONDS
) -> threading.Thread:
    """A daemon thread that waits until host:port accepts connections and then, if this process
    generated the SuperUser's password (it bootstraps before it listens), prints the banner."""

    def run() -> None:
        target = _connect_host(host)
        deadline = time.monotonic() + wait
        while not _listening(target, port):
            if time.monotonic() > deadline:
                return
            time.sleep(0.1)
        time.sleep(SETTLE_SECONDS)
        if generated_admin.password:
            stream = out or sys.stderr
            stream.write(banner(url, generated_admin.username, generated_admin.password) + "\n")
            stream.flush()

    thread = threading.Thread(target=run, name="tdg-first-start", daemon=True)
    thread.start()
    return thread
