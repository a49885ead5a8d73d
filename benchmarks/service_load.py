"""Service load benchmark: generation throughput of the real service and API latency under load.

Starts the real `tdg serve` (a subprocess on a free loopback port, TDG_WORKERS=2, a fresh SQLite
file and data directory, or a scratch PostgreSQL database with `--pg`), creates DATASETS datasets
of RECORDS records of /work/shared/bench/customer_order.schema.json (types csv) at once, and
while they generate a second process polls GET /api/v1/datasets/{id} and GET /api/v1/projects.
Prints

    generation throughput (records/s, from the datasets' own started_at/finished_at),
    polling p50/p99 latency per endpoint,
    the engine's single-process csv records/s, measured in this run the way
    benchmarks/generate.py measures it (compile excluded, one process writing a file through a
    1 MiB buffer, as many records as one dataset), and the ratio throughput / (engine x workers),
    and, for reference, two engine processes at once (no service): what the cores give.

This kind of machine changes speed by up to 2-3x within a minute, so the service runs `--rounds`
times with the engine (one process, and two at once) timed before each run and after the last;
each run is compared with the mean of the engine timings on either side of it, and the ratio
printed is the median of those paired ratios.

With `--storage s3` the service keeps its files on an S3 server (moto's standalone server, started
here on a loopback port with a bucket of its own, reached over HTTP as MinIO would be): parts
are multipart uploads and each dataset file is assembled by server-side copies, so the figures
show the object-store path's cost against the same engine timings.

Targets (issue 19 item 5): p99 < 50 ms; the service's records/s with two local workers at least
0.9 of two engine processes run at once (the throughput / (engine x workers) figure is printed too).

    .venv/bin/python benchmarks/service_load.py --records 100000      # a quick run
    .venv/bin/python benchmarks/service_load.py                       # 4 x 1,000,000
    .venv/bin/python benchmarks/service_load.py --storage s3          # files on an S3 server
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing
import os
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
from urllib.parse import urlsplit

import httpx
from _support import (
    SCHEMA,
    children_stats,
    database,
    free_port,
    percentile,
    process_cpu_seconds,
    service_env,
    tdg_serve,
)
from _support import login as login_as

from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema

PASSWORD = "bench-root-password-1"
TARGET_P99_MS = 50.0
TARGET_RATIO = 0.9


def engine_records_per_second(records: int, out: Path) -> tuple[float, float]:
    """One process, no service: compile the plan, then write `records` csv records to `out`
    (benchmarks/generate.py's figure). Returns (records per wall second, per CPU second)."""
    plan = compile_plan(load_schema(SCHEMA.read_bytes(), SCHEMA.name), [], {"seed": 1}, record_count=records)
    try:
        with open(out, "wb", buffering=1 << 20) as sink:
            started, cpu = time.perf_counter(), time.process_time()
            plan.write("csv", sink)
            return records / (time.perf_counter() - started), records / (time.process_time() - cpu)
    finally:
        out.unlink(missing_ok=True)


def children_cpu_seconds(parent: int) -> float:
    """CPU seconds (user + system) used so far by the direct children of `parent`: the pool's
    worker processes, which live as long as the service. On a shared machine this is the
    figure that says how much work the generation took, whatever else competed for the cores."""
    return sum(int(f[11]) + int(f[12]) for f in children_stats(parent)) / os.sysconf("SC_CLK_TCK")


def machine_idle_seconds() -> float:
    """Idle CPU seconds of the whole machine so far (all cores; idle + iowait of /proc/stat)."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()
    return (int(fields[4]) + int(fields[5])) / os.sysconf("SC_CLK_TCK")


def wait_for_warm_pool(server_pid: int, workers: int, timeout: float = 120.0) -> None:
    """Until the pool's processes exist and have stopped using CPU (imports and vocabularies
    done), so the CPU accounting below counts generation, not start-up."""
    deadline = time.monotonic() + timeout
    last = -1.0
    while time.monotonic() < deadline:
        children = children_stats(server_pid)
        used = sum(int(f[11]) + int(f[12]) for f in children)
        if len(children) >= workers and used == last:
            return
        last = used
        time.sleep(1.0)


@contextmanager
def object_store(storage: str) -> Iterator[dict[str, str]]:
    """The environment that puts the service's files in `storage`: nothing for the local folder;
    for `s3`, moto's standalone server on a loopback port (a process of its own, as MinIO would
    be) with a fresh bucket, and the store's URL, endpoint and (any) credentials."""
    if storage == "local":
        yield {}
        return
    import boto3  # only the S3 runs need it

    port = free_port()
    proc = subprocess.Popen([str(Path(sys.executable).with_name("moto_server")), "-H", "127.0.0.1", "-p", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("moto_server did not start") from None
                time.sleep(0.1)
        endpoint, bucket = f"http://127.0.0.1:{port}", f"tdg-load-{uuid.uuid4().hex[:8]}"
        credentials = {"AWS_ACCESS_KEY_ID": "bench-key", "AWS_SECRET_ACCESS_KEY": "bench-secret",
                       "AWS_DEFAULT_REGION": "us-east-1"}
        boto3.session.Session().client(
            "s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="bench-key",
            aws_secret_access_key="bench-secret").create_bucket(Bucket=bucket)
        yield {"TDG_STORAGE_URL": f"s3://{bucket}/tdg", "TDG_S3_ENDPOINT_URL": endpoint, **credentials}
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@contextmanager
def service(database_url: str, workdir: Path, workers: int, store_env: dict[str, str]) -> Iterator[tuple[str, int]]:
    """`tdg serve` in its own process group; yields its API base URL and its pid."""
    with tdg_serve({**service_env(database_url, workdir, PASSWORD, workers), **store_env}, workdir) as served:
        yield served


def login(base: str) -> dict[str, str]:
    return login_as(base, "root", PASSWORD)


def poll(base: str, headers: dict[str, str], dataset_ids: list[int], pause: float, stop: Event,
         out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    """The second process: alternate dataset detail and project list requests until stopped.
    A plain keep-alive http.client connection: the load generator shares the service's two cores,
    and httpx spent ~3x the CPU per request of the client itself."""
    url = urlsplit(base)
    latencies: dict[str, list[float]] = {"GET /datasets/{id}": [], "GET /projects": []}
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=30)
    cpu = time.process_time()  # the polling's own CPU, not the spawned interpreter's imports
    try:
        i = 0
        while not stop.is_set():
            for key, path in (("GET /datasets/{id}", f"/datasets/{dataset_ids[i % len(dataset_ids)]}"),
                              ("GET /projects", "/projects")):
                started = time.perf_counter()
                try:
                    conn.request("GET", url.path + path, headers=headers)
                    response = conn.getresponse()
                except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                    # the server closes a keep-alive connection idle for 5 s (uvicorn's default):
                    # a slow poller reconnects, as any client does
                    conn.close()
                    conn.request("GET", url.path + path, headers=headers)
                    response = conn.getresponse()
                body = response.read()
                latencies[key].append((time.perf_counter() - started) * 1000)
                if response.status != 200:
                    raise RuntimeError(f"GET {path}: {response.status} {body[:200]!r}")
            i += 1
            time.sleep(pause)
    finally:
        conn.close()
    out.put((latencies, time.process_time() - cpu))


def engine_pair(records: int, tmp: Path) -> float:
    """Two engine processes at once (no service), each writing `records` csv records: their
    summed records/s, the most two processes get out of this machine's two cores."""
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        results = pool.starmap(engine_records_per_second, [(records, tmp / f"pair-{i}.csv") for i in range(2)])
    return sum(wall for wall, _ in results)


def service_run(records: int, datasets: int, workers: int, pg: bool, poll_pause: float, storage: str) -> dict:
    """One run of the real service: DATASETS datasets at once, polled while they generate."""
    with tempfile.TemporaryDirectory(prefix="tdg-load-") as tmp, database(pg, Path(tmp), prefix="tdg_load") as url, \
            object_store(storage) as store_env, service(url, Path(tmp), workers, store_env) as (base, server_pid):
        headers = login(base)
        wait_for_warm_pool(server_pid, workers)
        with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
            project = client.post("/projects/create", json={"name": "Load", "description": "bench"}).json()
            schema = client.post("/schemas", files={"file": (SCHEMA.name, SCHEMA.read_bytes())}).json()
            ids = []
            # from before the first create: the workers start on the first dataset at once
            cpu_before = (children_cpu_seconds(server_pid), process_cpu_seconds(server_pid), time.process_time(),
                          machine_idle_seconds(), time.perf_counter())
            created = time.perf_counter()
            for i in range(datasets):
                r = client.post("/datasets/create", json={
                    "name": f"load-{i}", "project_id": project["project_id"], "schema_id": schema["schema_id"],
                    "record_count": records, "types": ["csv"], "params": {"seed": 1000 + i}})
                r.raise_for_status()
                ids.append(r.json()["dataset_id"])
            ctx = multiprocessing.get_context("spawn")
            stop, out = ctx.Event(), ctx.Queue()
            poller = ctx.Process(target=poll, args=(base, headers, ids, poll_pause, stop, out))
            poller.start()
            while True:
                bodies = [client.get(f"/datasets/{i}").json() for i in ids]
                if all(b["status"] not in ("queued", "running") for b in bodies):
                    break
                time.sleep(0.5)
            wall = time.perf_counter() - created
            worker_cpu = children_cpu_seconds(server_pid)
            cpu_after = (worker_cpu, process_cpu_seconds(server_pid), time.process_time(), machine_idle_seconds(),
                         time.perf_counter())
            stop.set()
            latencies, poller_cpu = out.get(timeout=60)
            poller.join(timeout=30)
    failed = [b for b in bodies if b["status"] != "completed"]
    if failed:
        raise SystemExit(f"datasets did not complete: {failed}")
    start = min(datetime.fromisoformat(b["started_at"]) for b in bodies)
    end = max(datetime.fromisoformat(b["finished_at"]) for b in bodies)
    span = (end - start).total_seconds()
    return {"span": span, "wall": wall, "rate": records * datasets / span, "latencies": latencies,
            "poller_cpu": poller_cpu,
            "spent": [after - before for before, after in zip(cpu_before, cpu_after, strict=True)]}


def run(records: int, datasets: int, workers: int, engine_records: int | None, pg: bool, poll_pause: float,
        rounds: int, storage: str = "local") -> None:
    engine_records = engine_records or records
    engines: list[tuple[float, float]] = []
    pairs: list[float] = []
    runs: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="tdg-load-") as tmp:
        for round_no in range(1, rounds + 2):
            engines.append(engine_records_per_second(engine_records, Path(tmp) / "engine.csv"))
            pairs.append(engine_pair(engine_records, Path(tmp)))
            print(f"engine alone (csv, {engine_records:,} records to a file): one process {engines[-1][0]:,.0f} "
                  f"records/s, two at once {pairs[-1]:,.0f} records/s", flush=True)
            if round_no > rounds:
                break
            runs.append(service_run(records, datasets, workers, pg, poll_pause, storage))
            print(f"round {round_no}: service ({storage} files) {datasets} x {records:,} csv records with {workers} workers in "
                  f"{runs[-1]['span']:.1f}s -> {runs[-1]['rate']:,.0f} records/s", flush=True)
    # each service run against the engine timings on either side of it (the machine's speed then)
    ratios = [r["rate"] / (workers * (engines[i][0] + engines[i + 1][0]) / 2) for i, r in enumerate(runs)]
    pair_ratios = [r["rate"] / ((pairs[i] + pairs[i + 1]) / 2) for i, r in enumerate(runs)]
    scaling = [p / (2 * e[0]) for p, e in zip(pairs, engines, strict=True)]
    # the workers' CPU while the datasets generated (the pool was warm before: its imports and
    # vocabularies are not counted, the plan compilations are), per record, against the engine's
    cpu_ratios = [records * datasets / r["spent"][0] / ((engines[i][1] + engines[i + 1][1]) / 2)
                  for i, r in enumerate(runs)]
    ratio, pair_ratio = statistics.median(ratios), statistics.median(pair_ratios)
    print(f"\ntwo engine processes at once give {statistics.median(scaling):.2f} x twice one process "
          f"(median of {len(scaling)}; what this machine's two cores give without any service)")
    all_ms: list[float] = []
    for key in runs[0]["latencies"]:
        values = [ms for r in runs for ms in r["latencies"][key]]
        all_ms.extend(values)
        print(f"polling {key} (all runs): n={len(values)} p50={percentile(values, 50):.1f} ms "
              f"p99={percentile(values, 99):.1f} ms max={max(values):.1f} ms")
    for i, r in enumerate(runs):
        spent = r["spent"]
        window = spent[4] * (os.cpu_count() or 1)
        print(f"run {i + 1}: {r['rate']:,.0f} records/s = {ratios[i]:.2f} x (engine x {workers}) = "
              f"{pair_ratios[i]:.2f} x two engine processes; workers at {cpu_ratios[i]:.2f} x the engine's records "
              f"per CPU second; the {window:.1f} CPU-seconds of the cores while generating went to workers "
              f"{spent[0]:.1f}, API server {spent[1]:.1f}, poller ~{r['poller_cpu']:.1f}, this process "
              f"{spent[2]:.1f}, idle {spent[3]:.1f}, other {window - sum(spent[:4]) - r['poller_cpu']:.1f}")
    p99 = percentile(all_ms, 99)
    print(f"polling overall p99 = {p99:.1f} ms (target < {TARGET_P99_MS:.0f} ms): "
          f"{'met' if p99 < TARGET_P99_MS else 'MISSED'}")
    print(f"service ({storage} files) with {workers} workers / two engine processes at once = {pair_ratio:.2f}, "
          f"median of {len(pair_ratios)} runs (target >= {TARGET_RATIO}): "
          f"{'met' if pair_ratio >= TARGET_RATIO else 'MISSED'}; throughput / (engine x {workers}) = {ratio:.2f}; "
          f"machine cores: {os.cpu_count()}, load average {os.getloadavg()[0]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=1_000_000, help="records per dataset")
    parser.add_argument("--datasets", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2, help="TDG_WORKERS of the service")
    parser.add_argument("--engine-records", type=int, default=None,
                        help="records of the engine measurement (default: --records)")
    parser.add_argument("--pg", action="store_true", help="PostgreSQL on 127.0.0.1:5432 instead of SQLite")
    parser.add_argument("--poll-pause", type=float, default=0.02,
                        help="seconds between the poller's request pairs (default 0.02: a brisk dashboard, "
                             "~25 pairs a second; a CI pipeline polling every 2 s is --poll-pause 2)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="service runs, each between two engine timings (median of the paired ratios)")
    parser.add_argument("--storage", choices=["local", "s3"], default="local",
                        help="where the service keeps its files: the local folder, or an S3 server (moto's)")
    args = parser.parse_args()
    run(args.records, args.datasets, args.workers, args.engine_records, args.pg, args.poll_pause, args.rounds,
        args.storage)


if __name__ == "__main__":
    main()
