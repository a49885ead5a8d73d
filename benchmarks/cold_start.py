"""Cold start benchmark (issue 20): how long until the first record, not how fast once running.

Each figure is taken over `--runs` runs, every run in fresh processes where the figure is about a
fresh process:

    tdg generate -n 1 -f json -o /dev/null   the bench JSON Schema, and the bench XSD (whole process;
                                              the XSD as built by an earlier run, which
                                              `tdg generate` keeps in its cache folder:
                                              app/generation/schema/xsd_cache.py)
    the same, an XSD never seen before        the bench XSD with a comment naming the run
                                              appended (new bytes: nothing cached, the
                                              schema is built and stored)
    tdg --help                                (whole process)
    preview, cold                             the first preview query of a `tdg serve` just
                                              started (a new server per run, over a database
                                              and data folder where the bench schema was
                                              uploaded before), 10 JSON records, POST
                                              /schemas/{id}/preview, client-observed
    preview, warm                             the same query again in that running server
                                              (`--warm` queries per run, each a new seed)
    1,000-record dataset                      from the create response to `completed`: the
                                              dataset's own finished_at - created_at, what a
                                              client polling every 10 ms observes (create sent
                                              -> completed seen), the create request's own
                                              round trip (the first create of a server just
                                              started looks for the schema's problems in a
                                              probe process it starts), and the CPU time the
                                              pool's processes spent on the dataset (the
                                              figure a loaded machine does not stretch)

The server is the real `tdg serve` (a subprocess on a free loopback port, TDG_WORKERS=2, a
SQLite file and data folder of its own, or a scratch PostgreSQL database with `--pg`); before
the dataset is created its warm process pool is given time to settle (what a server that has
been up for a while looks like). Prints median and max of each figure against the targets:
generate -n 1 < 0.4 s, preview warm < 100 ms, 1,000-record dataset < 1 s. The pool's processes
run at nice 19: on a machine busy with other work, the dataset figures measure mostly that.

    .venv/bin/python benchmarks/cold_start.py [--runs 5] [--pg]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import datetime
from pathlib import Path

import httpx
from _support import TDG, children_stats, database, service_env, tdg_serve
from _support import login as login_as

# ../shared/bench beside the repository, else the copies kept with the tests (as tests/paths.py)
_SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "bench"
BENCH = (
    _SHARED
    if (_SHARED / "customer_order.xsd").exists()
    else Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "bench"
)
JSON_SCHEMA, XSD = BENCH / "customer_order.schema.json", BENCH / "customer_order.xsd"
PASSWORD = "bench-root-password-1"
WORKERS = 2
RECORDS = 1000
TARGETS = {"generate": 0.4, "preview_warm": 0.1, "dataset": 1.0}


def timed_process(command: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, timeout=120)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr.decode()[-2000:]}")
    return elapsed


def generate_one(schema: Path) -> float:
    return timed_process(
        [str(TDG), "generate", str(schema), "-n", "1", "-f", "json", "-o", "/dev/null", "--seed", "1"]
    )


def generate_new_xsd(run: int, folder: Path) -> float:
    """`tdg generate -n 1` of the bench XSD as a file no run has read before: its bytes (and so
    its cache key) differ by a trailing comment naming the run and the time."""
    stamp = f"{run}-{time.time_ns()}"  # unique to this run of this benchmark, not only its index
    fresh = folder / f"new-{stamp}.xsd"
    fresh.write_bytes(XSD.read_bytes() + f"<!-- cold start run {stamp} -->\n".encode())
    try:
        return generate_one(fresh)
    finally:
        fresh.unlink()


def wait_for_settled_pool(server_pid: int, workers: int, quiet: float = 1.0, timeout: float = 180.0) -> None:
    """Until the pool's processes exist and have all been asleep for `quiet` seconds (imports,
    warm-up and vocabularies done). Asleep, not "used no CPU": at nice 19 on a busy machine a
    process still warming up can wait seconds for a CPU, runnable all the while."""
    deadline, since = time.monotonic() + timeout, time.monotonic()
    while time.monotonic() < deadline:
        children = children_stats(server_pid)
        # fields[0] is the state: R running or runnable, S/D/I asleep or idle
        if len(children) < workers or any(f[0] == "R" for f in children):
            since = time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
        time.sleep(0.1)


def preview(client: httpx.Client, schema_id: int, seed: int) -> float:
    started = time.perf_counter()
    r = client.post(
        f"/schemas/{schema_id}/preview", json={"count": 10, "format": "json", "params": {"seed": seed}}
    )
    elapsed = time.perf_counter() - started
    r.raise_for_status()
    return elapsed


def dataset(client: httpx.Client, project_id: int, schema_id: int, seed: int) -> tuple[float, float, float]:
    """(finished_at - created_at, client-observed create sent -> completed seen, the create
    request's round trip) of one dataset."""
    sent = time.perf_counter()
    r = client.post(
        "/datasets/create",
        json={
            "name": f"cold-{seed}",
            "project_id": project_id,
            "schema_id": schema_id,
            "record_count": RECORDS,
            "types": ["json"],
            "params": {"seed": seed},
        },
    )
    r.raise_for_status()
    answered = time.perf_counter() - sent
    dataset_id = r.json()["dataset_id"]
    deadline = sent + 60
    while True:
        body = client.get(f"/datasets/{dataset_id}").json()
        if body["status"] not in ("queued", "running"):
            break
        if time.perf_counter() > deadline:
            raise SystemExit(f"dataset {dataset_id} did not finish within a minute: {body}")
        time.sleep(0.01)
    observed = time.perf_counter() - sent
    if body["status"] != "completed":
        raise SystemExit(f"dataset {dataset_id} ended {body['status']}: {body.get('error')}")
    created = datetime.fromisoformat(body["created_at"])
    finished = datetime.fromisoformat(body["finished_at"])
    return (finished - created).total_seconds(), observed, answered


def pool_cpu(server_pid: int, pids: set[str] | None = None) -> tuple[float, set[str]]:
    """CPU seconds the server's child processes used so far (only those of `pids` when given: a
    child started since, such as the schema-problems probe process, is no pool process), and the
    children's pids."""
    used, seen = 0, set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[1]) == server_pid and (pids is None or stat.parent.name in pids):
            used += int(fields[11]) + int(fields[12])
            seen.add(stat.parent.name)
    return used / os.sysconf("SC_CLK_TCK"), seen


@contextmanager
def stored_service(pg: bool) -> Iterator[tuple[dict[str, str], Path, dict[str, int]]]:
    """A database and data directory holding a project and the bench schema (uploaded through a
    first server, stopped again): yields the servers' environment, work folder and the ids."""
    with (
        tempfile.TemporaryDirectory(prefix="tdg-cold-") as tmp,
        database(pg, Path(tmp), prefix="tdg_cold") as url,
    ):
        env = service_env(url, Path(tmp), PASSWORD, WORKERS)
        with (
            tdg_serve(env, Path(tmp)) as (base, _),
            httpx.Client(base_url=base, headers=login_as(base, "root", PASSWORD), timeout=60) as client,
        ):
            project = client.post("/projects/create", json={"name": "Cold", "description": "bench"}).json()
            schema = client.post(
                "/schemas", files={"file": (JSON_SCHEMA.name, JSON_SCHEMA.read_bytes())}
            ).json()
        yield env, Path(tmp), {"project_id": project["project_id"], "schema_id": schema["schema_id"]}


def service_run(
    run: int, stored: tuple[dict[str, str], Path, dict[str, int]], warm: int, figures: dict[str, list[float]]
) -> None:
    """A new server over the stored data: its first preview, `warm` more, then one dataset."""
    env, workdir, ids = stored
    with tdg_serve(env, workdir) as (base, server_pid):
        headers = login_as(base, "root", PASSWORD)
        with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
            figures["preview_cold"].append(preview(client, ids["schema_id"], 1000 * run))
            figures["preview_warm"].extend(
                preview(client, ids["schema_id"], 1000 * run + i + 1) for i in range(warm)
            )
            wait_for_settled_pool(server_pid, WORKERS)
            cpu, pool = pool_cpu(server_pid)
            stored_time, observed, answered = dataset(client, ids["project_id"], ids["schema_id"], run)
            figures["dataset"].append(stored_time)
            figures["dataset_observed"].append(observed)
            figures["dataset_create"].append(answered)
            figures["dataset_cpu"].append(pool_cpu(server_pid, pool)[0] - cpu)


ROWS: list[tuple[str, str, str | None]] = [
    ("generate_json", f"tdg generate -n 1 ({JSON_SCHEMA.name})", "generate"),
    ("generate_xsd", f"tdg generate -n 1 ({XSD.name})", "generate"),
    ("generate_xsd_new", f"tdg generate -n 1 ({XSD.name}, never seen)", None),
    ("help", "tdg --help", None),
    ("preview_cold", "preview, first after start (10 records)", None),
    ("preview_warm", "preview, warm (10 records)", "preview_warm"),
    ("dataset", f"{RECORDS:,}-record dataset, finished_at - created_at", "dataset"),
    ("dataset_observed", f"{RECORDS:,}-record dataset, client-observed", "dataset"),
    ("dataset_create", f"{RECORDS:,}-record dataset, the create request", None),
    ("dataset_cpu", f"{RECORDS:,}-record dataset, workers' CPU time", None),
]


def report(figures: dict[str, list[float]]) -> None:
    print(f"\n{'':52} {'median':>9} {'max':>9} {'target':>9}  n")
    for key, label, target in ROWS:
        values = figures[key]
        if not values:
            continue
        goal = TARGETS[target] if target else None
        med, top = statistics.median(values), max(values)
        verdict = "" if goal is None else ("  ok" if med < goal else "  MISSED")
        goal_text = f"< {goal * 1000:.0f} ms" if goal is not None else ""
        print(f"{label:52} {med * 1000:7.0f}ms {top * 1000:7.0f}ms {goal_text:>9}  {len(values)}{verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--warm", type=int, default=5, help="warm previews per server run")
    parser.add_argument("--pg", action="store_true", help="a scratch PostgreSQL database instead of SQLite")
    parser.add_argument("--no-service", action="store_true", help="only the command-line figures")
    args = parser.parse_args()
    figures: dict[str, list[float]] = {key: [] for key, _, _ in ROWS}
    steps: list[tuple[str, Callable[[], float]]] = [
        ("generate_json", lambda: generate_one(JSON_SCHEMA)),
        ("generate_xsd", lambda: generate_one(XSD)),
        ("help", lambda: timed_process([str(TDG), "--help"])),
    ]
    with ExitStack() as stack:
        scratch = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tdg-cold-xsd-")))
        stored = None if args.no_service else stack.enter_context(stored_service(args.pg))
        for run in range(args.runs):
            for key, step in steps:
                figures[key].append(step())
            figures["generate_xsd_new"].append(generate_new_xsd(run, scratch))
            if stored is not None:
                service_run(run, stored, args.warm, figures)
            print(f"run {run + 1}/{args.runs} done (load average {os.getloadavg()[0]:.1f})", flush=True)
    report(figures)


if __name__ == "__main__":
    main()
