"""A shard's lease kept alive by its worker process, not by its progress: a thread renews it every
quarter lease while the process lives, so a step longer than the lease (a wide block, a slow
part upload, a starved machine) keeps the shard, and only a dead or partitioned worker loses it.

Every renewal is fenced like any worker write (the shard's attempt, the shard running, its
dataset running): once the fence is lost the heartbeat says so in `lost`, and the worker stops
at its next progress update. A failed renewal (the database briefly unreachable) is tried again
at the next beat; the lease outlasts three of them.

One thread per process renews every lease the process holds (`LeaseKeeper`). A pool process
starts it before lowering its own priority (a nice value is a thread's on Linux, and a thread
inherits its creator's): generation yields the CPU to everything else, its lease renewals do not."""

from __future__ import annotations

import logging
import os
import threading
import time
from datetime import timedelta
from types import TracebackType

from sqlalchemy.engine import Engine

from app.core.models import utcnow
from app.core.repositories.jobs import fenced_shard_update, lock_dataset

log = logging.getLogger("tdg.worker")
BEATS_PER_LEASE = 4
SHORTEST_BEAT_SECONDS = 0.05
IDLE_SECONDS = 1.0


class Heartbeat:
    """Renews (dataset_id, shard_id) at `attempt` while entered. `attempt` changes only under
    `switching`, which a renewal also holds: a take-over moves the fence from the dispatcher's
    claim to the worker's attempt without a renewal seeing the one in between."""

    def __init__(
        self, engine: Engine, dataset_id: int, shard_id: int, attempt: int, lease: timedelta
    ) -> None:
        self.engine = engine
        self.dataset_id = dataset_id
        self.shard_id = shard_id
        self.attempt = attempt
        self.lease = lease
        self.interval = max(SHORTEST_BEAT_SECONDS, lease.total_seconds() / BEATS_PER_LEASE)
        self.due = 0.0
        self.lost = threading.Event()
        self.switching = threading.Lock()

    def __enter__(self) -> Heartbeat:
        lease_keeper().add(self)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        lease_keeper().discard(self)

    def renew(self) -> bool:
        """One fenced renewal; False when this worker no longer holds the shard."""
        with self.switching, self.engine.begin() as conn:
            lock_dataset(conn, self.dataset_id)
            return fenced_shard_update(conn, self.shard_id, self.attempt, lease_until=utcnow() + self.lease)

    def beat(self) -> None:
        try:
            held = self.renew()
        except Exception as exc:  # the next beat tries again: the lease outlasts several
            log.warning("shard %s: lease renewal failed, retrying: %r", self.shard_id, exc)
            return
        if not held:  # beats on: a take-over in progress moves the fence and clears `lost`
            self.lost.set()


class LeaseKeeper:
    """The thread of one process that beats every heartbeat entered in it, each when it is due."""

    def __init__(self) -> None:
        self._beats: set[Heartbeat] = set()
        self._lock = threading.Lock()
        self._changed = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tdg-lease-keeper", daemon=True)
        self._thread.start()

    def add(self, heartbeat: Heartbeat) -> None:
        heartbeat.due = time.monotonic() + heartbeat.interval
        with self._lock:
            self._beats.add(heartbeat)
        self._changed.set()

    def discard(self, heartbeat: Heartbeat) -> None:
        with self._lock:
            self._beats.discard(heartbeat)

    def _run(self) -> None:
        while True:
            now = time.monotonic()
            with self._lock:
                due = [hb for hb in self._beats if hb.due <= now]
            for heartbeat in due:
                heartbeat.beat()
                heartbeat.due = time.monotonic() + heartbeat.interval
            with self._lock:
                wake = min((hb.due for hb in self._beats), default=time.monotonic() + IDLE_SECONDS)
            self._changed.wait(max(0.0, wake - time.monotonic()))
            self._changed.clear()


_keeper: tuple[int, LeaseKeeper] | None = None
_keeper_lock = threading.Lock()


def lease_keeper() -> LeaseKeeper:
    """This process's keeper, started on first use (a forked child starts its own: threads do not
    survive a fork)."""
    global _keeper
    with _keeper_lock:
        if _keeper is None or _keeper[0] != os.getpid():
            _keeper = (os.getpid(), LeaseKeeper())
        return _keeper[1]


__all__ = ["Heartbeat", "LeaseKeeper", "lease_keeper"]
