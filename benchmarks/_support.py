"""Pieces the benchmarks share: a scratch database (SQLite file or a throw-away PostgreSQL
database on 127.0.0.1:5432), a server subprocess on a free loopback port, a login, percentiles.
Imported as `_support` by the scripts beside it (`python benchmarks/<name>.py` puts this
directory on sys.path)."""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx
import psycopg

# ../shared/bench beside the repository, else the copy kept with the tests
SCHEMA = next(p for p in (Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "customer_order.schema.json",
                          Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "bench" / "customer_order.schema.json")
              if p.exists())
TDG = Path(sys.executable).with_name("tdg")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: Sequence[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def children_stats(parent: int) -> list[list[str]]:
    """/proc/<pid>/stat fields (after the command name) of the worker processes of `parent`: its
    direct children, where a child that is the service's fork server (app/core/processes.py)
    stands for the pool and probe processes it forked. fields[1] is the parent pid; utime, stime
    are fields[11] and fields[12]."""
    out = []
    for pid, fields in _direct_children(parent):
        out.extend([f for _, f in _direct_children(pid)] if _is_fork_server(pid) else [fields])
    return out


def _direct_children(parent: int) -> list[tuple[int, list[str]]]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[1]) == parent:
            out.append((int(stat.parent.name), fields))
    return out


def _is_fork_server(pid: int) -> bool:
    try:
        return b"multiprocessing.forkserver" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def process_cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) one process used so far, not counting its children."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _pg_admin() -> tuple[str, str]:
    """A connection string to the maintenance database and the user it logs in as (trust auth)."""
    for user in ("postgres", "root"):
        dsn = f"host=127.0.0.1 port=5432 user={user} dbname=postgres"
        try:
            with psycopg.connect(dsn, connect_timeout=5):
                return dsn, user
        except psycopg.OperationalError:
            continue
    raise SystemExit("PostgreSQL is not reachable on 127.0.0.1:5432")


@contextmanager
def database(pg: bool, workdir: Path, prefix: str = "tdg_bench") -> Iterator[str]:
    """A SQLAlchemy URL: `workdir`/bench.db, or a PostgreSQL database created for the run and
    dropped after it."""
    if not pg:
        yield f"sqlite:///{workdir / 'bench.db'}"
        return
    admin, user = _pg_admin()
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg://{user}@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def server(command: Sequence[str], env: dict[str, str], log: Path, ready_url: str, ready_status: int = 200,
           timeout: float = 90.0) -> Iterator[int]:
    """`command` in its own process group (so its worker processes go with it), its output in
    `log`, until `ready_url` answers `ready_status`; yields its pid, then SIGTERMs the group."""
    out = open(log, "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(list(command), env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(ready_url, timeout=2).status_code == ready_status:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{command[0]} did not start:\n" + log.read_text()[-2000:])
            time.sleep(0.2)
        yield proc.pid
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)
        except ProcessLookupError:  # it had exited (and reported why above)
            pass
        out.close()


def service_env(database_url: str, workdir: Path, password: str, workers: int) -> dict[str, str]:
    """The environment of a `tdg serve` over `database_url` with its data under `workdir`/data,
    SuperUser `root`, and `workers` generation processes."""
    return {"TDG_DATABASE_URL": database_url, "TDG_DATA_DIR": str(workdir / "data"),
            "TDG_SECRET_KEY": "bench-secret-key-" + "x" * 32, "TDG_ADMIN_USERNAME": "root",
            "TDG_ADMIN_PASSWORD": password, "TDG_WORKERS": str(workers)}


@contextmanager
def tdg_serve(env: dict[str, str], workdir: Path, *args: str) -> Iterator[tuple[str, int]]:
    """`tdg serve [args]` on a free port; yields its API base URL and its pid."""
    port = free_port()
    base = f"http://127.0.0.1:{port}/api/v1"
    command = [str(TDG), "serve", "--port", str(port), "--log-level", "warning", *args]
    with server(command, env, workdir / "serve.log", f"{base}/users/me", ready_status=401) as pid:
        yield base, pid


def login(base: str, username: str, password: str) -> dict[str, str]:
    r = httpx.post(f"{base}/users/token", data={"username": username, "password": password}, timeout=30)
    r.raise_for_status()
    return {"Authorization": f"Bearer {r.json()['access_token']}"}
