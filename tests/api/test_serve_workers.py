"""`tdg serve --workers 2` really runs two server processes: a live subprocess answers requests
from both (each response names its process in X-Served-By), runs the background loops in exactly
one of them (only that one has a generation pool; a dataset queued through the other starts at
once, woken across processes, and completes exactly once), and when that process is killed -9
another one takes the loops over and generation goes on."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path
from typing import Any

import httpx
from sqlmodel import Session, select

from app.core.database import make_sync_engine
from app.core.models import DomainEvent
from tests.datasets.flow import ORDER_JSON
from tests.datasets.processes import Proc, expected_sha256, free_port, service_env, start_serve
from tests.support.waiting import eventually_sync

RECORDS = 20_000
ELECTED = re.compile(r"process (\d+) runs the background loops")
# far beyond the test's waits: a dataset that starts promptly was woken, not found by a tick
TICK_SECONDS = "3600"
WAIT = 300.0  # deadlines, however slowly a loaded machine starts processes (all far below a tick)
# long enough that a pool process starved of CPU never loses its shard (each dataset runs once)
LEASE_SECONDS = "600"


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _is_fork_server(pid: int) -> bool:
    try:
        return b"multiprocessing.forkserver" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _workers(pid: int) -> list[int]:
    """The pool and probe processes of a server process: the children of its fork server
    (app/core/processes.py), which stays once started, and any direct child but the fork server."""
    out = []
    for child in _children(pid):
        out.extend(_children(child) if _is_fork_server(child) else [child])
    return out


def _alive(pid: int) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


class _Server:
    def __init__(self, proc: Proc, port: int) -> None:
        self.proc = proc
        self.base = f"http://127.0.0.1:{port}/api/v1"
        r = httpx.post(f"{self.base}/users/token", data={"username": "root", "password": "root-password-123"},
                       timeout=30)
        assert r.status_code == 200, r.text
        # no keep-alive: each request is a new connection, accepted by whichever process is free
        self.headers = {"Authorization": f"Bearer {r.json()['access_token']}", "Connection": "close"}

    def call(self, method: str, path: str, status: int, **kwargs: Any) -> httpx.Response:
        r = httpx.request(method, self.base + path, headers=self.headers, timeout=30, **kwargs)
        assert r.status_code == status, (method, path, r.status_code, r.text)
        return r

    def elected(self) -> list[int]:
        return [int(pid) for pid in ELECTED.findall(self.proc.output())]

    def create_through(self, pid: int, project_id: int, schema_id: int, seed: int) -> dict[str, Any]:
        """Create a dataset in a request answered by process `pid` (others are answered too:
        their datasets are deleted)."""
        for _ in range(200):
            r = self.call("POST", "/datasets/create", 201, json={
                "name": f"ds-{seed}", "project_id": project_id, "schema_id": schema_id, "record_count": RECORDS,
                "types": ["csv"], "params": {"seed": seed}})
            if int(r.headers["x-served-by"]) == pid:
                body: dict[str, Any] = r.json()
                return body
            self.call("DELETE", f"/datasets/{r.json()['dataset_id']}", 200)
        raise AssertionError(f"no request answered by process {pid}")

    def completed(self, dataset_id: int, timeout: float) -> dict[str, Any]:
        body: dict[str, Any] = eventually_sync(
            lambda: self.call("GET", f"/datasets/{dataset_id}", 200).json(),
            lambda b: b["status"] not in ("queued", "running"), timeout=timeout, interval=0.2,
            what=f"dataset {dataset_id} finishing")
        return body


def _assert_completed_once(database_url: str, body: dict[str, Any], seed: int) -> None:
    assert body["status"] == "completed", body
    assert body["attempt"] == 1, body
    assert [(f["format"], f["records"]) for f in body["files"]] == [("csv", RECORDS)]
    expected = expected_sha256(ORDER_JSON, "customer_order.schema.json", {"seed": seed}, RECORDS, "csv")
    assert body["files"][0]["sha256"] == expected
    engine = make_sync_engine(database_url)
    try:
        with Session(engine) as session:
            events = session.exec(select(DomainEvent).where(DomainEvent.type == "dataset.completed")).all()
    finally:
        engine.dispose()
    assert [e.data["dataset_id"] for e in events].count(body["dataset_id"]) == 1


def test_serve_workers_share_requests_and_run_the_loops_once(database_url: str, tmp_path: Path) -> None:
    env = service_env(database_url, tmp_path / "data", TDG_WORKERS="1", TDG_DISPATCH_INTERVAL_SECONDS=TICK_SECONDS,
                      TDG_JOB_LEASE_SECONDS=LEASE_SECONDS)
    port = free_port()
    proc = start_serve(env, tmp_path / "serve.log", port, "--workers", "2", timeout=WAIT)
    try:
        server = _Server(proc, port)

        # both processes answer requests
        seen: set[int] = set()

        def both_answered() -> set[int]:
            seen.add(int(server.call("GET", "/users/me", 200).headers["x-served-by"]))
            return seen

        pids = eventually_sync(both_answered, lambda s: len(s) == 2, timeout=WAIT, interval=0.05,
                               what="requests answered by two processes")
        assert set(_children(proc.pid)) >= pids  # the workers of this server

        # the background loops run in one of them: the only one with a generation pool
        (leader,) = eventually_sync(server.elected, timeout=WAIT, what="a process elected")
        assert leader in pids
        (other,) = pids - {leader}
        eventually_sync(lambda: _workers(leader), lambda c: len(c) == 1, timeout=WAIT,
                        what="the leader's pool process")
        assert _workers(other) == []

        project = server.call("POST", "/projects/create", 201, json={"name": "Workers", "description": ""}).json()
        schema = server.call("POST", "/schemas", 201,
                             files={"file": ("customer_order.schema.json", ORDER_JSON)}).json()

        # queued through the other process: the leader is woken across processes (its tick is a
        # minute away) and generates it exactly once
        first = server.create_through(other, project["project_id"], schema["schema_id"], seed=11)
        _assert_completed_once(database_url, server.completed(first["dataset_id"], timeout=WAIT), seed=11)
        assert server.elected() == [leader]
        # still no generation pool there: the upload's problems probe (app/core/schema_probe.py) ran in
        # a pool of its own, which shuts down once idle (its fork server stays, holding no schema)
        eventually_sync(lambda: _workers(other), lambda c: c == [], timeout=WAIT,
                        what="the other process without pool or probe processes")
        assert len([c for c in _children(other) if _is_fork_server(c)]) <= 1

        assert "Traceback" not in proc.output(), proc.output()[-3000:]

        # the leader dies: another process takes the loops over, and generation goes on
        os.kill(leader, signal.SIGKILL)
        (_, successor) = eventually_sync(server.elected, lambda e: len(e) == 2, timeout=WAIT,
                                         what="another process elected")
        assert successor != leader and _alive(successor)
        assert not _alive(leader)
        second = server.create_through(successor, project["project_id"], schema["schema_id"], seed=12)
        _assert_completed_once(database_url, server.completed(second["dataset_id"], timeout=WAIT), seed=12)
        assert len(server.elected()) == 2
    finally:
        proc.stop()
