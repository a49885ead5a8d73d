"""API throughput benchmark: many concurrent clients polling a dataset and the project list, over
REST, over GraphQL, and against a bare FastAPI app reading the same rows (the baseline).

Starts the real `tdg serve` (a subprocess on a free loopback port; `--server-workers N` passes
`--workers N`) over a fresh SQLite file or a throw-away PostgreSQL database (`--database
postgresql`: 127.0.0.1:5432, trust auth), and beside it the baseline: a FastAPI app of two routes
(`GET /datasets/{id}`: the dataset row; `GET /projects`: the first 50 projects and their count),
on the same database through the app's own engine and session setup, run by uvicorn with the same
options as `tdg serve` (import string and factory, as `tdg serve --workers` runs; same worker count,
each worker listening on a socket of its own as tdg's do, app/listening.py).

Each of CLIENTS clients (one keep-alive connection each, a minimal asyncio HTTP/1.1 client: httpx
spends several times the server's CPU per request, and the clients share the machine's cores with
the server) alternates the two requests as fast as answers come, with a real bearer token:

    REST      GET /api/v1/datasets/{id}          GET /api/v1/projects
    GraphQL   POST /graphql DatasetDetail         POST /graphql Projects(limit: 50, offset: 0)
              (the stored operations the REST routes run: the same fields)
    baseline  GET /datasets/{id}                  GET /projects

first with nothing else running ("idle"), then while two large datasets generate ("generating":
two datasets of --records csv records each are kept running; a finished one is replaced before
the next measurement). The targets take turns, --rounds times, so the machine's drift hits each
alike. Prints requests/s, p50, p99 and max per target and phase, and each one's req/s against the
baseline of the same phase; and the CPU the answering server processes used per request while
measured (generation pools excluded), which on a machine shared with other work says what each
request costs whatever the cores were busy with. Targets: REST and GraphQL at least 0.5 x the baseline's req/s; p99
under 100 ms idle, under 200 ms while datasets generate.

    .venv/bin/python benchmarks/api_throughput.py                         # SQLite
    .venv/bin/python benchmarks/api_throughput.py --database postgresql
    .venv/bin/python benchmarks/api_throughput.py --server-workers 2
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
from _support import (
    SCHEMA,
    children_stats,
    database,
    free_port,
    login,
    percentile,
    process_cpu_seconds,
    server,
    service_env,
    tdg_serve,
)

from app.rest.operations import op

PASSWORD = "bench-root-password-1"
TARGET_RATIO = 0.5
TARGET_P99_MS = {"idle": 100.0, "generating": 200.0}
PAGE = 50


# -- the baseline: a bare FastAPI app over the same database ---------------------------------------

def baseline_app() -> Any:
    """uvicorn's app factory (`--factory api_throughput:baseline_app`): two routes reading the rows
    the API reads, through the app's own engine and session setup; no authentication, no GraphQL."""
    from fastapi import FastAPI
    from sqlalchemy import func
    from sqlmodel import col, select
    from starlette.responses import Response

    from app.core.database import make_async_engine, make_sessionmaker
    from app.core.datasets.models import Dataset
    from app.core.projects.models import Project
    from app.core.settings import get_settings

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_async_engine(get_settings().database_url)
        app.state.sessionmaker = make_sessionmaker(engine)
        yield
        await engine.dispose()

    app = FastAPI(lifespan=lifespan, openapi_url=None, docs_url=None, redoc_url=None)

    @app.get("/datasets/{dataset_id}")
    async def dataset(dataset_id: int) -> Response:
        async with app.state.sessionmaker() as session:
            row = (await session.exec(select(Dataset).where(Dataset.id == dataset_id))).one()
            return Response(orjson.dumps(row.model_dump()), media_type="application/json")

    @app.get("/projects")
    async def projects() -> Response:
        async with app.state.sessionmaker() as session:
            rows = (await session.exec(select(Project).order_by(col(Project.id)).limit(PAGE))).all()
            total = (await session.exec(select(func.count()).select_from(Project))).one()
            return Response(orjson.dumps([r.model_dump() for r in rows]), media_type="application/json",
                            headers={"X-Total-Count": str(total)})

    return app


@contextmanager
def baseline_server(env: dict[str, str], workdir: Path, workers: int) -> Iterator[tuple[str, int]]:
    port = free_port()
    command = [sys.executable, __file__, "--serve-baseline", str(port), str(workers)]
    with server(command, env, workdir / "baseline.log", f"http://127.0.0.1:{port}/projects") as pid:
        yield f"http://127.0.0.1:{port}", pid


def serve_baseline(port: int, workers: int) -> None:
    """The baseline's server: uvicorn as `tdg serve` runs it (import string and factory; with
    several workers, one listening socket each, app/listening.py), without tdg's guards."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from app.listening import worker_sockets

    sys.path.insert(0, str(Path(__file__).parent))
    config = uvicorn.Config("api_throughput:baseline_app", factory=True, host="127.0.0.1", port=port,
                            log_level="warning", proxy_headers=False, workers=workers)
    if workers > 1:
        sockets, claim = worker_sockets(config)
        with claim:
            Multiprocess(config, sockets=sockets).run()
    else:
        uvicorn.Server(config).run()


def server_cpu_seconds(pid: int, workers: int) -> float:
    """CPU seconds the server's request-serving processes used so far: the process itself, and with
    several workers its children (uvicorn's workers), but not a generation pool's processes."""
    used = process_cpu_seconds(pid)
    if workers > 1:
        used += sum(int(f[11]) + int(f[12]) for f in children_stats(pid)) / os.sysconf("SC_CLK_TCK")
    return used


# -- the load: a minimal keep-alive HTTP/1.1 client ------------------------------------------------

def _get(path: str, headers: dict[str, str]) -> bytes:
    lines = [f"GET {path} HTTP/1.1", "Host: bench", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _post_json(path: str, headers: dict[str, str], body: Any) -> bytes:
    data = orjson.dumps(body)
    lines = [f"POST {path} HTTP/1.1", "Host: bench", "Content-Type: application/json",
             f"Content-Length: {len(data)}", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + data


@dataclass
class Target:
    name: str
    port: int
    requests: list[bytes]  # each client cycles through these
    cpu: Callable[[], float]  # CPU seconds the server answering them has used so far
    graphql: bool = False  # a 200 may carry errors: the body must have none


@dataclass
class Tally:
    latencies_ms: list[float] = field(default_factory=list)
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)
    client_cpu: float = 0.0
    server_cpu: float = 0.0  # during the measured seconds


async def _exchange(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes) -> tuple[int, bytes]:
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = None
    chunked = False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
    if length is not None:
        return status, await reader.readexactly(length)
    if not chunked:
        raise RuntimeError(f"response without a length: {head!r}")
    body = bytearray()
    while size := int((await reader.readuntil(b"\r\n")).strip(), 16):
        body += await reader.readexactly(size + 2)
    await reader.readuntil(b"\r\n")
    return status, bytes(body)


async def _client(target: Target, offset: int, start_at: float, stop_at: float, tally: Tally) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", target.port)
    i = offset
    try:
        while (now := time.perf_counter()) < stop_at:
            request = target.requests[i % len(target.requests)]
            i += 1
            status, body = await _exchange(reader, writer, request)
            done = time.perf_counter()
            if status != 200 or (target.graphql and b'"errors"' in body):
                tally.errors.append(f"{status} {body[:200]!r}")
            elif now >= start_at:  # after the warm-up
                tally.latencies_ms.append((done - now) * 1000)
    finally:
        writer.close()


async def _server_cpu(target: Target, start_at: float, stop_at: float, tally: Tally) -> None:
    await asyncio.sleep(start_at - time.perf_counter())
    used = target.cpu()
    await asyncio.sleep(stop_at - time.perf_counter())
    tally.server_cpu += target.cpu() - used


async def _load(target: Target, clients: int, warmup: float, seconds: float, tally: Tally) -> None:
    start_at = time.perf_counter() + warmup
    stop_at = start_at + seconds
    cpu = time.process_time()
    await asyncio.gather(_server_cpu(target, start_at, stop_at, tally),
                         *(_client(target, n, start_at, stop_at, tally) for n in range(clients)))
    tally.client_cpu += time.process_time() - cpu
    tally.seconds += seconds


def run_load(target: Target, clients: int, warmup: float, seconds: float, tally: Tally) -> None:
    try:
        import uvloop

        uvloop.run(_load(target, clients, warmup, seconds, tally))
    except ImportError:
        asyncio.run(_load(target, clients, warmup, seconds, tally))


# -- set-up: a project page, a polled dataset, and two large ones kept generating ------------------

@dataclass
class Fixture:
    client: httpx.Client
    project_id: int
    schema_id: int
    polled: int  # a small completed dataset
    records: int
    generating: list[int] = field(default_factory=list)
    started: int = 0


def wait_status(client: httpx.Client, dataset_id: int, done: set[str], timeout: float = 300) -> str:
    deadline = time.monotonic() + timeout
    while True:
        status = str(client.get(f"/datasets/{dataset_id}").json()["status"])
        if status in done:
            return status
        if time.monotonic() > deadline:
            raise RuntimeError(f"dataset {dataset_id} still {status} after {timeout} s")
        time.sleep(0.2)


def create_dataset(fx: Fixture, name: str, records: int) -> int:
    r = fx.client.post("/datasets/create", json={
        "name": name, "project_id": fx.project_id, "schema_id": fx.schema_id, "record_count": records,
        "types": ["csv"], "params": {"seed": 1000 + fx.started}})
    r.raise_for_status()
    fx.started += 1
    return int(r.json()["dataset_id"])


def setup(client: httpx.Client, projects: int, records: int) -> Fixture:
    ids = [client.post("/projects/create", json={"name": f"Throughput {i:03d}", "description": "benchmark",
                                                 "tags": ["bench"]}).raise_for_status().json()["project_id"]
           for i in range(projects)]
    schema = client.post("/schemas", files={"file": (SCHEMA.name, SCHEMA.read_bytes())}).raise_for_status().json()
    fx = Fixture(client, ids[0], schema["schema_id"], 0, records)
    fx.polled = create_dataset(fx, "polled", 2000)
    if wait_status(client, fx.polled, {"completed", "failed"}) != "completed":
        raise SystemExit(f"the polled dataset failed: {client.get(f'/datasets/{fx.polled}').text}")
    return fx


def keep_generating(fx: Fixture, count: int = 2) -> None:
    """Until `count` large datasets are running (finished ones are replaced)."""
    fx.generating = [i for i in fx.generating
                     if fx.client.get(f"/datasets/{i}").json()["status"] in ("queued", "running")]
    while len(fx.generating) < count:
        fx.generating.append(create_dataset(fx, f"big-{fx.started}", fx.records))
    for dataset_id in fx.generating:
        wait_status(fx.client, dataset_id, {"running"}, timeout=120)


def stop_generating(fx: Fixture) -> int:
    """Deletes the running ones; how many of them finished meanwhile (were replaced)."""
    for dataset_id in fx.generating:
        fx.client.delete(f"/datasets/{dataset_id}")
    return fx.started - 1 - len(fx.generating)


# -- the run ----------------------------------------------------------------------------------------

def targets(base: str, baseline: str, headers: dict[str, str], dataset_ids: list[int],
            cpu: tuple[Callable[[], float], Callable[[], float]]) -> list[Target]:
    api = httpx.URL(base)
    rest_port, bare_port = api.port or 80, httpx.URL(baseline).port or 80
    dataset_query, projects_query = op("DatasetDetail").document, op("Projects").document
    page = {"q": None, "tag": None, "tenant_id": None, "limit": PAGE, "offset": 0}
    rest, gql, bare = [], [], []
    for dataset_id in dataset_ids:
        rest += [_get(f"{api.path}/datasets/{dataset_id}", headers), _get(f"{api.path}/projects", headers)]
        gql += [_post_json("/graphql", headers, {"query": dataset_query, "variables": {"dataset_id": dataset_id}}),
                _post_json("/graphql", headers, {"query": projects_query, "variables": page})]
        bare += [_get(f"/datasets/{dataset_id}", {}), _get("/projects", {})]
    served, bare_cpu = cpu
    return [Target("baseline", bare_port, bare, bare_cpu), Target("REST", rest_port, rest, served),
            Target("GraphQL", rest_port, gql, served, graphql=True)]


def check_parity(base: str, headers: dict[str, str], dataset_id: int) -> None:
    """REST and GraphQL answer the same (or comparing their speed means nothing)."""
    with httpx.Client(base_url=base, headers=headers, timeout=30) as c:
        graphql = str(httpx.URL(base).copy_with(path="/graphql"))
        detail = c.post(graphql, json={"query": op("DatasetDetail").document, "variables": {"dataset_id": dataset_id}})
        assert c.get(f"/datasets/{dataset_id}").json() == detail.json()["data"]["dataset"]
        page = c.post(graphql, json={"query": op("Projects").document, "variables": {"limit": PAGE, "offset": 0}})
        assert c.get("/projects").json() == page.json()["data"]["projects"]["items"]


def measure(phase: str, all_targets: list[Target], args: argparse.Namespace, rounds: range,
            results: dict[tuple[str, str], Tally]) -> None:
    """Each target in turn, for each round of `rounds`; the first target of a round rotates."""
    for round_no in rounds:
        order = all_targets[round_no % len(all_targets):] + all_targets[:round_no % len(all_targets)]
        for target in order:
            tally = results.setdefault((phase, target.name), Tally())
            run_load(target, args.clients, args.warmup, args.seconds, tally)
            print(f"  {phase:<11}round {round_no + 1} {target.name:<9}{len(tally.latencies_ms):>8} requests so far",
                  flush=True)


def report(results: dict[tuple[str, str], Tally], header: str) -> bool:
    ok = True
    print(f"\n{header}")
    print(f"{'phase':<12}{'target':<10}{'requests':>9}{'req/s':>8}{'p50 ms':>8}{'p99 ms':>8}{'max ms':>8}"
          f"{'x baseline':>11}{'server CPU ms/req':>19}{'x baseline':>11}{'errors':>7}{'client CPU':>11}")
    for (phase, name), tally in results.items():
        count = len(tally.latencies_ms)
        rate, cpu = count / tally.seconds, tally.server_cpu * 1000 / count
        base = results[(phase, "baseline")]
        ratio = rate / (len(base.latencies_ms) / base.seconds)
        cpu_ratio = (base.server_cpu * 1000 / len(base.latencies_ms)) / cpu
        p50, p99 = percentile(tally.latencies_ms, 50), percentile(tally.latencies_ms, 99)
        print(f"{phase:<12}{name:<10}{count:>9}{rate:>8.0f}{p50:>8.1f}{p99:>8.1f}{max(tally.latencies_ms):>8.1f}"
              f"{ratio:>11.2f}{cpu:>19.2f}{cpu_ratio:>11.2f}{len(tally.errors):>7}"
              f"{tally.client_cpu / tally.seconds:>10.0%}")
        if tally.errors:
            print(f"    ! {len(tally.errors)} failed requests, e.g. {tally.errors[0]}")
            ok = False
        if name != "baseline":
            if ratio < TARGET_RATIO:
                print(f"    ! req/s below {TARGET_RATIO} x the baseline")
                ok = False
            if p99 >= TARGET_P99_MS[phase]:
                print(f"    ! p99 above {TARGET_P99_MS[phase]:.0f} ms")
                ok = False
    print("(server CPU: the answering processes' CPU per request while measured, generation pools excluded; "
          "its 'x baseline' is the baseline's per-request CPU over the target's, the req/s ratio the cores "
          "would give were they the server's alone)")
    return ok


def measure_all(args: argparse.Namespace, fx: Fixture, base: str, baseline: str,
                cpu: tuple[Callable[[], float], Callable[[], float]]) -> tuple[dict[tuple[str, str], Tally], int]:
    """Both phases; returns the tallies and how many large datasets finished (were replaced) meanwhile."""
    headers = {"Authorization": fx.client.headers["Authorization"]}
    check_parity(base, headers, fx.polled)
    results: dict[tuple[str, str], Tally] = {}
    measure("idle", targets(base, baseline, headers, [fx.polled], cpu), args, range(args.rounds), results)
    if args.skip_generating:
        return results, 0
    for round_no in range(args.rounds):
        # one round at a time, so a finished dataset is replaced before the next one
        keep_generating(fx)
        measure("generating", targets(base, baseline, headers, [fx.polled, *fx.generating], cpu), args,
                range(round_no, round_no + 1), results)
    return results, stop_generating(fx)


def run(args: argparse.Namespace) -> bool:
    pg = args.database == "postgresql"
    workers = args.server_workers
    with tempfile.TemporaryDirectory(prefix="tdg-throughput-") as tmp, \
            database(pg, Path(tmp), prefix="tdg_throughput") as url:
        workdir = Path(tmp)
        env = service_env(url, workdir, PASSWORD, args.generation_workers)
        serve_args = ["--workers", str(workers)] if workers > 1 else []
        with tdg_serve(env, workdir, *serve_args) as (base, served_pid), \
                httpx.Client(base_url=base, headers=login(base, "root", PASSWORD), timeout=60) as client:
            fx = setup(client, args.projects, args.records)
            with baseline_server(env, workdir, workers) as (baseline, bare_pid):
                load_before = os.getloadavg()[0]
                cpu = (lambda: server_cpu_seconds(served_pid, workers), lambda: server_cpu_seconds(bare_pid, workers))
                results, replaced = measure_all(args, fx, base, baseline, cpu)
    backend = "PostgreSQL" if pg else "SQLite"
    header = (f"{backend}; tdg serve --workers {workers} (TDG_WORKERS={args.generation_workers} "
              f"generation processes); {args.clients} clients; {args.rounds} x {args.seconds:.0f} s per target and "
              f"phase; {os.cpu_count()} cores, load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")
    if replaced:
        header += f"; {replaced} large dataset(s) finished and were replaced while generating"
    return report(results, header)


def main() -> None:
    if sys.argv[1:2] == ["--serve-baseline"]:
        serve_baseline(int(sys.argv[2]), int(sys.argv[3]))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=8.0, help="measured seconds per target, phase and round")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="seconds of load before each measurement (pools fill, per-process caches warm)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--server-workers", type=int, default=1, help="`tdg serve --workers` (and the baseline's)")
    parser.add_argument("--generation-workers", type=int, default=2, help="TDG_WORKERS of the service")
    parser.add_argument("--records", type=int, default=5_000_000, help="records of each large dataset")
    parser.add_argument("--projects", type=int, default=60, help="projects created (the page lists 50)")
    parser.add_argument("--skip-generating", action="store_true", help="only the idle phase")
    args = parser.parse_args()
    ok = run(args)
    print("all targets met" if ok else "some targets missed (see '!' lines)")


if __name__ == "__main__":
    main()
