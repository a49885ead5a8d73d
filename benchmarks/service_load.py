"""Service load benchmark: generation throughput of the real service and API latency under load.

Starts the real `tdg serve` (a subprocess on a free loopback port, TDG_WORKERS=2, a fresh SQLite
file and data directory, or a scratch PostgreSQL database with `--pg`), creates DATASETS datasets
of RECORDS records of /work/shared/bench/customer_order.schema.json (types csv) at once, and
while they generate a second process polls GET /api/v1/datasets/{id} and GET /api/v1/projects.
Prints

    generation throughput (records/s, from the datasets' own started_at/finished_at),
    polling p50/p99 latency per endpoint,
    the engine's single-process csv records/s (Plan.write to /dev/null, measured in this run
    before the service starts) and the ratio throughput / (engine x workers).

Targets: p99 < 50 ms; throughput within 10% of the engine figure x workers.

    .venv/bin/python benchmarks/service_load.py --records 100000      # a quick run
    .venv/bin/python benchmarks/service_load.py                       # 4 x 1,000,000
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from multiprocessing.synchronize import Event
from pathlib import Path

import httpx
import psycopg

from app.generation.engine import compile_plan
from app.generation.schema_loader import load_schema

# ../shared/bench beside the repository, else the copy kept with the tests
SCHEMA = next(p for p in (Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "customer_order.schema.json",
                          Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "bench" / "customer_order.schema.json")
              if p.exists())
TDG = Path(sys.executable).with_name("tdg")
PASSWORD = "bench-root-password-1"
TARGET_P99_MS = 50.0
TARGET_RATIO = 0.9


def engine_records_per_second(records: int) -> tuple[float, float]:
    """One process, no service: compile the plan and write `records` csv records to /dev/null.
    Returns (records per wall second, records per CPU second)."""
    plan = compile_plan(load_schema(SCHEMA.read_bytes(), SCHEMA.name), [], {"seed": 1}, record_count=records)
    with open(os.devnull, "wb") as sink:
        started, cpu = time.perf_counter(), time.process_time()
        plan.write("csv", sink)
        return records / (time.perf_counter() - started), records / (time.process_time() - cpu)


def children_cpu_seconds(parent: int) -> float:
    """CPU seconds (user + system) used so far by the direct children of `parent`: the pool's
    worker processes, which live as long as the service. On a shared machine this is the
    figure that says how much work the generation took, whatever else competed for the cores."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[1]) == parent:  # fields[1] is the parent pid; utime, stime are 12 and 13
            total += int(fields[11]) + int(fields[12])
    return total / tick


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def database(pg: bool, workdir: Path) -> Iterator[str]:
    if not pg:
        yield f"sqlite:///{workdir / 'bench.db'}"
        return
    admin = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"
    name = f"tdg_load_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def service(database_url: str, workdir: Path, workers: int) -> Iterator[tuple[str, int]]:
    """`tdg serve` in its own process group; yields its API base URL and its pid."""
    port = free_port()
    env = {**os.environ, "TDG_DATABASE_URL": database_url, "TDG_DATA_DIR": str(workdir / "data"),
           "TDG_SECRET_KEY": "bench-secret-key-" + "x" * 32, "TDG_ADMIN_USERNAME": "root",
           "TDG_ADMIN_PASSWORD": PASSWORD, "TDG_WORKERS": str(workers)}
    log = open(workdir / "serve.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen([str(TDG), "serve", "--port", str(port), "--log-level", "warning"], env=env,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}/api/v1"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{base}/users/me", timeout=2).status_code == 401:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("tdg serve did not start:\n" + (workdir / "serve.log").read_text()[-2000:])
            time.sleep(0.2)
        yield base, proc.pid
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        log.close()


def login(base: str) -> dict[str, str]:
    r = httpx.post(f"{base}/users/token", data={"username": "root", "password": PASSWORD}, timeout=30)
    r.raise_for_status()
    return {"Authorization": f"Bearer {r.json()['access_token']}"}


def poll(base: str, headers: dict[str, str], dataset_ids: list[int], stop: Event,
         out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    """The second process: alternate dataset detail and project list requests until stopped."""
    latencies: dict[str, list[float]] = {"GET /datasets/{id}": [], "GET /projects": []}
    with httpx.Client(base_url=base, headers=headers, timeout=30) as client:
        i = 0
        while not stop.is_set():
            for key, path in (("GET /datasets/{id}", f"/datasets/{dataset_ids[i % len(dataset_ids)]}"),
                              ("GET /projects", "/projects")):
                started = time.perf_counter()
                r = client.get(path)
                latencies[key].append((time.perf_counter() - started) * 1000)
                r.raise_for_status()
            i += 1
            time.sleep(0.02)  # a brisk dashboard, not a flood: ~25 request pairs a second
    out.put(latencies)


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def run(records: int, datasets: int, workers: int, engine_records: int, pg: bool) -> None:
    print(f"engine: single-process csv, {engine_records:,} records ...", flush=True)
    engine_rps, engine_cpu_rps = engine_records_per_second(engine_records)
    print(f"engine: {engine_rps:,.0f} records/s ({engine_cpu_rps:,.0f} per CPU second)", flush=True)
    with tempfile.TemporaryDirectory(prefix="tdg-load-") as tmp, database(pg, Path(tmp)) as url, \
            service(url, Path(tmp), workers) as (base, server_pid):
        headers = login(base)
        with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
            project = client.post("/projects/create", json={"name": "Load", "description": "bench"}).json()
            schema = client.post("/schemas", files={"file": (SCHEMA.name, SCHEMA.read_bytes())}).json()
            ids = []
            created = time.perf_counter()
            for i in range(datasets):
                r = client.post("/datasets/create", json={
                    "name": f"load-{i}", "project_id": project["project_id"], "schema_id": schema["schema_id"],
                    "record_count": records, "types": ["csv"], "params": {"seed": 1000 + i}})
                r.raise_for_status()
                ids.append(r.json()["dataset_id"])
            ctx = multiprocessing.get_context("spawn")
            stop, out = ctx.Event(), ctx.Queue()
            poller = ctx.Process(target=poll, args=(base, headers, ids, stop, out))
            poller.start()
            while True:
                bodies = [client.get(f"/datasets/{i}").json() for i in ids]
                if all(b["status"] not in ("queued", "running") for b in bodies):
                    break
                time.sleep(0.5)
            wall = time.perf_counter() - created
            worker_cpu = children_cpu_seconds(server_pid)
            stop.set()
            latencies: dict[str, list[float]] = out.get(timeout=60)
            poller.join(timeout=30)
    failed = [b for b in bodies if b["status"] != "completed"]
    if failed:
        raise SystemExit(f"datasets did not complete: {failed}")
    start = min(datetime.fromisoformat(b["started_at"]) for b in bodies)
    end = max(datetime.fromisoformat(b["finished_at"]) for b in bodies)
    span = (end - start).total_seconds()
    total = records * datasets
    service_rps = total / span
    print(f"service: {datasets} x {records:,} csv records with {workers} workers in {span:.1f}s "
          f"(first start to last finish; {wall:.1f}s from the first create) -> {service_rps:,.0f} records/s")
    all_ms: list[float] = []
    for key, values in latencies.items():
        all_ms.extend(values)
        print(f"polling {key}: n={len(values)} p50={percentile(values, 50):.1f} ms "
              f"p99={percentile(values, 99):.1f} ms max={max(values):.1f} ms")
    p99 = percentile(all_ms, 99)
    ratio = service_rps / (engine_rps * workers)
    cpu_rps = total / worker_cpu
    print(f"service workers used {worker_cpu:.1f} CPU s (imports and compiles included) -> {cpu_rps:,.0f} records "
          f"per CPU second = {cpu_rps / engine_cpu_rps:.2f} x the engine's")
    print(f"polling overall p99 = {p99:.1f} ms (target < {TARGET_P99_MS:.0f} ms): "
          f"{'met' if p99 < TARGET_P99_MS else 'MISSED'}")
    print(f"throughput / (engine x {workers}) = {ratio:.2f} (target >= {TARGET_RATIO}): "
          f"{'met' if ratio >= TARGET_RATIO else 'MISSED'}; machine cores: {os.cpu_count()}, "
          f"load average {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1_000_000, help="records per dataset")
    parser.add_argument("--datasets", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2, help="TDG_WORKERS of the service")
    parser.add_argument("--engine-records", type=int, default=200_000, help="records of the engine measurement")
    parser.add_argument("--pg", action="store_true", help="PostgreSQL on 127.0.0.1:5432 instead of SQLite")
    args = parser.parse_args()
    run(args.records, args.datasets, args.workers, args.engine_records, args.pg)


if __name__ == "__main__":
    main()
