"""One leader among the processes of one `tdg serve --workers N`.

The background loops (the dataset dispatcher and its process pool, webhook deliveries, the
retention purge) run in one process of the server, not in each of the N: in the process holding
an exclusive lock (flock) on a file under the data directory. The kernel releases the lock when
its holder dies, however it dies; the other processes try again every second, so another takes
over within a second or so (uvicorn starts a replacement worker meanwhile), and picks up the work
the way a restarted server does (leases lapse, shards are re-queued).

The lock is per server: the supervising process's pid is in the file's name. Separate `tdg serve`
instances sharing a database keep running their own loops, as before (leases and fences keep
them apart).

A wake-up (a dataset was queued, a webhook delivery is due now) is asked for by whichever process
served the request: the leader listens on a loopback UDP port written into the lock file, and a
wake-up from another process is one datagram to it. A lost datagram costs only the wait for the
loop's next tick."""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import socket
from collections.abc import Callable, Mapping
from pathlib import Path

log = logging.getLogger("tdg.leader")
RETRY_SECONDS = 1.0


def lock_path(data_dir: Path, server_pid: int) -> Path:
    """The lock file of the server whose supervising process is `server_pid`."""
    return data_dir / "serve" / f"{socket.gethostname()}-{server_pid}.lock"


class Leadership:
    """This process's part in the election. `on_elected` runs (on the event loop) once this
    process becomes the leader; `wakers` are the leader's wake-ups by name."""

    def __init__(
        self,
        path: Path,
        on_elected: Callable[[], None],
        wakers: Mapping[str, Callable[[], None]],
        retry_seconds: float = RETRY_SECONDS,
    ) -> None:
        self.path = path
        self.on_elected = on_elected
        self.wakers = dict(wakers)
        self.retry_seconds = retry_seconds
        self.is_leader = False
        self._fd: int | None = None
        self._listener: socket.socket | None = None
        self._sender: socket.socket | None = None
        self._retry: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Lead now if no other process does, else keep trying in the background."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        if not self._try_lead():
            self._retry = asyncio.create_task(self._keep_trying(), name="tdg-leader-election")

    async def stop(self) -> None:
        """No further election in this process (shutting down). The lock is kept until `release`,
        so no other process starts the loops before this one has stopped them."""
        if self._retry is not None:
            self._retry.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._retry
            self._retry = None

    def release(self) -> None:
        self._resign()
        if self._sender is not None:
            self._sender.close()
            self._sender = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def wake(self, name: str) -> None:
        """Wake the leader's loop `name` (from any process of the server)."""
        if self.is_leader:
            self.wakers[name]()
            return
        try:
            port = int(self.path.read_bytes().split()[1])
        except (OSError, ValueError, IndexError):
            return  # no leader yet, or one writing its port right now: the next tick comes anyway
        if self._sender is None:
            self._sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            self._sender.setblocking(False)
        with contextlib.suppress(OSError):
            self._sender.sendto(name.encode(), ("127.0.0.1", port))

    def relay(self, name: str) -> Relay:
        return Relay(self, name)

    async def _keep_trying(self) -> None:
        while True:
            try:
                if self._try_lead():
                    return
            except Exception:
                log.exception("taking over the background loops failed; trying again")
            await asyncio.sleep(self.retry_seconds)

    def _try_lead(self) -> bool:
        assert self._fd is not None
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        listener.bind(("127.0.0.1", 0))
        listener.setblocking(False)
        asyncio.get_running_loop().add_reader(listener.fileno(), self._on_datagram)
        self._listener = listener
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, f"{os.getpid()} {listener.getsockname()[1]}\n".encode(), 0)
        self.is_leader = True
        log.info("process %d runs the background loops (dispatcher, webhooks, retention)", os.getpid())
        try:
            self.on_elected()
        except BaseException:
            self._resign()
            raise
        return True

    def _resign(self) -> None:
        if self._listener is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closing
                asyncio.get_running_loop().remove_reader(self._listener.fileno())
            self._listener.close()
            self._listener = None
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        self.is_leader = False

    def _on_datagram(self) -> None:
        assert self._listener is not None
        while True:
            try:
                data = self._listener.recv(64)
            except OSError:  # drained (BlockingIOError), or closed meanwhile
                return
            waker = self.wakers.get(data.decode(errors="replace"))
            if waker is not None:
                waker()


class Relay:
    """`wake()` of one of the leader's loops, from any process (what a request context holds)."""

    def __init__(self, leadership: Leadership, name: str) -> None:
        self.leadership = leadership
        self.name = name

    def wake(self) -> None:
        self.leadership.wake(self.name)
