"""Worker processes seen from a test, without waiting on the wall clock: whether a process is
gone, the CPU time processes have used (a busy machine slows a process down but does not change
what it costs), and a dead worker's lease expired at once instead of after its real seconds."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select, update
from sqlmodel import col

from app.core.database import make_sync_engine
from app.core.datasets.models import DatasetShard, ShardStatus
from app.core.models import utcnow

_TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (state first), None when gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None


def alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper in a container without an init counts as dead)."""
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def pool_cpu_seconds(parent: int | None = None) -> float:
    """User + system CPU seconds used so far by the live process-pool children of `parent` (this
    process): the pool of an app served in this process (spawned multiprocessing children)."""
    parent = os.getpid() if parent is None else parent
    ticks = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        fields = _stat(int(entry.name))
        if fields is None or int(fields[1]) != parent:
            continue
        try:
            command = (entry / "cmdline").read_bytes()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if b"--multiprocessing-fork" in command:
            ticks += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of the line)
    return ticks / _TICKS


def locker_pid(locked_by: str | None) -> int | None:
    """The process id of a worker's `host:pid` lock (None for the dispatcher's claim, or none)."""
    if not locked_by or locked_by.startswith("dispatcher:"):
        return None
    tail = locked_by.rpartition(":")[2]
    return int(tail) if tail.isdigit() else None


def expire_leases(database_url: str, dataset_id: int, pids: set[int] | None = None) -> int:
    """Expire now the leases of the dataset's running shards (only those held by these dead
    worker processes, when given), as the seconds of their lease running out would; returns how
    many shards that was. Tests use long leases, so a worker that is merely slow on a loaded
    machine never loses its shard, and expire the leases of the workers they kill."""
    engine = make_sync_engine(database_url)
    try:
        with engine.begin() as conn:
            running = conn.execute(
                select(DatasetShard.id, DatasetShard.locked_by).where(
                    col(DatasetShard.dataset_id) == dataset_id,
                    col(DatasetShard.status) == ShardStatus.running.value,
                )
            ).all()
            ids = [shard_id for shard_id, locker in running if pids is None or locker_pid(locker) in pids]
            if ids:
                conn.execute(
                    update(DatasetShard)
                    .where(col(DatasetShard.id).in_(ids))
                    .values(lease_until=utcnow() - timedelta(hours=1))
                )
            return len(ids)
    finally:
        engine.dispose()
