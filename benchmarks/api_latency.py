"""API latency benchmark: REST facade vs direct GraphQL, and SQL statements per request.

Seeds a dedicated database (SQLite file by default; `--pg` creates and drops a PostgreSQL
database on 127.0.0.1:5432) with PROJECTS projects of MEMBERS members each, through SQLAlchemy
core bulk inserts of the app's own models, then drives the app **in-process over httpx's ASGI
transport** (no sockets: the figures are the application's own cost, not the network's) and
prints p50/p99 for

    GET /api/v1/projects/{id}   vs  POST /graphql  project(project_id:)
    GET /api/v1/projects        vs  POST /graphql  projects(limit:, offset:)

plus the REST facade's overhead against the direct GraphQL call, and the SQL statements each
request executes (counted with a `before_cursor_execute` listener) for a 5- vs a 50-member
project and a 10- vs 500-row page, which must not grow with size.

    .venv/bin/python benchmarks/api_latency.py [--pg] [--requests 300]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from _support import database as scratch_database
from sqlalchemy import event, insert, select

from app.core.database import make_sync_engine
from app.core.migrate import upgrade
from app.core.models import Role
from app.core.projects.models import Project, ProjectMember
from app.core.security.passwords import hash_password
from app.core.settings import Settings
from app.core.tenants.models import Tenant
from app.core.users.models import User
from app.main import create_app
from app.rest.operations import op

PASSWORD = "bench-password-1"
PROJECT, PROJECTS = op("Project").document, op("Projects").document
TARGET_OVERHEAD_PCT = 20.0
TARGET_DETAIL_P99_MS = 20.0


@dataclass(frozen=True)
class Seeded:
    big_project: int  # MEMBERS members
    small_project: int  # 5 members
    admin_username: str


def seed(url: str, *, projects: int, members: int, pool: int) -> Seeded:
    """Bulk-insert one tenant: an Admin, `pool` users, `projects` projects with `members` members each."""
    engine = make_sync_engine(url)
    password_hash = hash_password(PASSWORD)  # one hash for every seeded user: argon2 is slow on purpose
    with engine.begin() as conn:
        tenant_id = conn.execute(insert(Tenant).returning(Tenant.id),  # type: ignore[arg-type]
                                 [Tenant(name="bench").model_dump(exclude={"id"})]).scalar_one()
        users = [User(tenant_id=tenant_id, username="bench_admin", email="admin@bench.example", role=Role.Admin.value,
                      password_hash=password_hash)]
        users += [User(tenant_id=tenant_id, username=f"bench_user_{i}", email=f"user{i}@bench.example",
                       display_name=f"User {i}", role=Role.Tester.value, password_hash=password_hash)
                  for i in range(pool)]
        conn.execute(insert(User), [u.model_dump(exclude={"id"}) for u in users])
        user_ids = list(conn.execute(select(User.id).where(User.tenant_id == tenant_id, User.username != "bench_admin")
                                     .order_by(User.id)).scalars())
        admin_id = conn.execute(select(User.id).where(User.username == "bench_admin")).scalar_one()
        rows = [Project(tenant_id=tenant_id, name=f"Project {i:04d}", description="benchmark project",
                        tags=["bench", f"group-{i % 10}"], created_by=admin_id).model_dump(exclude={"id"})
                for i in range(projects + 1)]
        conn.execute(insert(Project), rows)
        project_ids = list(conn.execute(select(Project.id).where(Project.tenant_id == tenant_id)
                                        .order_by(Project.id)).scalars())
        memberships = []
        for n, pid in enumerate(project_ids):
            count = 5 if n == len(project_ids) - 1 else members
            for k in range(count):
                memberships.append(ProjectMember(project_id=pid, user_id=user_ids[(n * 7 + k) % len(user_ids)],
                                                 role=("view", "edit", "owner")[k % 3], added_by=admin_id).model_dump())
        for start in range(0, len(memberships), 5000):
            conn.execute(insert(ProjectMember), memberships[start:start + 5000])
    engine.dispose()
    return Seeded(big_project=project_ids[0], small_project=project_ids[-1], admin_username="bench_admin")


@contextmanager
def database(use_pg: bool) -> Iterator[str]:
    """A throw-away SQLite file or PostgreSQL database (benchmarks/_support.py)."""
    with tempfile.TemporaryDirectory(prefix="tdg-bench-") as tmp, scratch_database(use_pg, Path(tmp)) as url:
        yield url


class StatementCounter:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, *_: Any) -> None:
        self.count += 1


async def timed(call: Callable[[], Awaitable[httpx.Response]], n: int) -> tuple[list[float], list[float]]:
    """Wall-clock ms and this process's CPU ms of each of `n` requests. CPU time is the steadier figure
    on a shared machine (waiting for a core does not count); it leaves out the PostgreSQL server's work."""
    for _ in range(min(20, n)):  # warm-up: caches, pools, first-query planning
        (await call()).raise_for_status()
    wall, cpu = [], []
    for _ in range(n):
        start, start_cpu = time.perf_counter(), time.process_time()
        r = await call()
        cpu.append((time.process_time() - start_cpu) * 1000)
        wall.append((time.perf_counter() - start) * 1000)
        r.raise_for_status()
    return wall, cpu


def pct(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


async def run(url: str, seeded: Seeded, requests: int, data_dir: Path) -> bool:
    settings = Settings(env="test", database_url=url, data_dir=data_dir, admin_username="root",
                        admin_password=PASSWORD, secret_key="bench-secret-" + "x" * 32, workers=1)
    app = create_app(settings, run_migrations=False)
    ok = True
    async with app.router.lifespan_context(app):
        counter = StatementCounter()
        event.listen(app.state.engine.sync_engine, "before_cursor_execute", counter)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
            r = await client.post("/api/v1/users/token", data={"username": seeded.admin_username, "password": PASSWORD})
            r.raise_for_status()
            headers = {"Authorization": f"Bearer {r.json()['access_token']}"}

            def rest(path: str, **params: Any) -> Callable[[], Awaitable[httpx.Response]]:
                return lambda: client.get("/api/v1" + path, headers=headers, params=params)

            def gql(query: str, **variables: Any) -> Callable[[], Awaitable[httpx.Response]]:
                return lambda: client.post("/graphql", headers=headers, json={"query": query, "variables": variables})

            page = {"q": None, "tag": None, "tenant_id": None}
            cases = {
                "detail (50 members)": (rest(f"/projects/{seeded.big_project}"),
                                        gql(PROJECT, project_id=seeded.big_project)),
                "list (50 rows)": (rest("/projects"), gql(PROJECTS, limit=50, offset=0, **page)),
            }
            # the answers are the same, or the comparison means nothing
            for name, (rest_call, gql_call) in cases.items():
                rest_body = (await rest_call()).json()
                data = (await gql_call()).json()["data"]
                expected = data["project"] if "detail" in name else data["projects"]["items"]
                assert rest_body == expected, name

            print(f"latency over {requests} sequential requests each (in-process ASGI, ms; wall clock and CPU):")
            print(f"  {'request':<22}{'style':<9}{'p50':>8}{'p99':>9}{'cpu p50':>9}{'cpu p99':>9}")
            for name, (rest_call, gql_call) in cases.items():
                # interleave the two styles in rounds so drift on a shared machine hits both alike
                samples: dict[str, tuple[list[float], list[float]]] = {"REST": ([], []), "GraphQL": ([], [])}
                rounds = 4
                for _ in range(rounds):
                    for style, call in (("REST", rest_call), ("GraphQL", gql_call)):
                        wall, cpu = await timed(call, requests // rounds)
                        samples[style][0].extend(wall)
                        samples[style][1].extend(cpu)
                for style, (wall, cpu) in samples.items():
                    print(f"  {name:<22}{style:<9}{pct(wall, 50):>8.2f}{pct(wall, 99):>9.2f}{pct(cpu, 50):>9.2f}"
                          f"{pct(cpu, 99):>9.2f}")
                wall_overhead = (pct(samples["REST"][0], 50) / pct(samples["GraphQL"][0], 50) - 1) * 100
                cpu_overhead = (pct(samples["REST"][1], 50) / pct(samples["GraphQL"][1], 50) - 1) * 100
                print(f"  {name:<22}REST facade overhead vs direct GraphQL (p50): wall {wall_overhead:+.1f}%,"
                      f" CPU {cpu_overhead:+.1f}%")
                if cpu_overhead > TARGET_OVERHEAD_PCT:
                    print(f"    ! REST overhead above the {TARGET_OVERHEAD_PCT:.0f}% target")
                    ok = False
                if "detail" in name and pct(samples["REST"][0], 99) > TARGET_DETAIL_P99_MS:
                    print(f"    ! p99 project detail (wall) above the {TARGET_DETAIL_P99_MS:.0f} ms target")
                    ok = False

            print("SQL statements per request:")
            sized = [
                ("detail, 5 members", rest(f"/projects/{seeded.small_project}"),
                 gql(PROJECT, project_id=seeded.small_project)),
                ("detail, 50 members", rest(f"/projects/{seeded.big_project}"),
                 gql(PROJECT, project_id=seeded.big_project)),
                ("list, 10 rows", rest("/projects", limit=10), gql(PROJECTS, limit=10, offset=0, **page)),
                ("list, 500 rows", rest("/projects", limit=500), gql(PROJECTS, limit=500, offset=0, **page)),
            ]
            counts: dict[str, tuple[int, int]] = {}
            for name, rest_call, gql_call in sized:
                per_style = []
                for call in (rest_call, gql_call):
                    counter.count = 0
                    (await call()).raise_for_status()
                    per_style.append(counter.count)
                counts[name] = (per_style[0], per_style[1])
                print(f"  {name:<22} REST {per_style[0]:>3}   GraphQL {per_style[1]:>3}")
            for small, big in (("detail, 5 members", "detail, 50 members"), ("list, 10 rows", "list, 500 rows")):
                if counts[small] != counts[big]:
                    print(f"    ! statements grow with size: {small} {counts[small]} vs {big} {counts[big]}")
                    ok = False
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pg", action="store_true", help="use a throw-away PostgreSQL database on 127.0.0.1:5432")
    parser.add_argument("--requests", type=int, default=400, help="timed requests per style and endpoint")
    parser.add_argument("--projects", type=int, default=1000)
    parser.add_argument("--members", type=int, default=50)
    parser.add_argument("--users", type=int, default=500, help="size of the user pool members are drawn from")
    args = parser.parse_args()
    with database(args.pg) as url, tempfile.TemporaryDirectory(prefix="tdg-bench-data-") as data_dir:
        backend = "PostgreSQL" if args.pg else "SQLite"
        start = time.perf_counter()
        upgrade(url)
        seeded = seed(url, projects=args.projects, members=args.members, pool=args.users)
        print(f"{backend}: seeded {args.projects + 1} projects ({args.projects} x {args.members} members + one with 5)"
              f" in {time.perf_counter() - start:.1f} s")
        ok = asyncio.run(run(url, seeded, args.requests, Path(data_dir)))
    print("all targets met" if ok else "some targets missed (see '!' lines)")


if __name__ == "__main__":
    main()
