"""Analytics benchmark (not a test): the `analytics` GraphQL query over 10,000 datasets.

Seeds a fresh SQLite file and a throw-away PostgreSQL database on 127.0.0.1:5432 (skip it with
`--no-pg`) with one tenant of PROJECTS projects and DATASETS datasets spread over the last year
(completed with files, failed with a handful of reasons, running, queued, cancelled), through
SQLAlchemy core bulk inserts of the app's own models; then drives the app in-process over
httpx's ASGI transport and prints the median wall time of RUNS requests (after two warm-up
requests) for an Admin (every project) and a Tester (a member of one project in ten), per period,
with this process's CPU time beside it (steadier on a shared machine; it leaves out PostgreSQL's
own work). Target: under 100 ms.

    .venv/bin/python benchmarks/analytics.py [--no-pg] [--runs 10] [--projects 1000] [--datasets 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from api_latency import database  # benchmarks/api_latency.py: a throwaway SQLite or PostgreSQL database
from sqlalchemy import insert, select

from app.core.database import make_sync_engine
from app.core.datasets.models import Dataset, DatasetFile, DatasetShard
from app.core.library.models import SchemaDoc
from app.core.migrate import upgrade
from app.core.models import Role
from app.core.projects.models import Project, ProjectMember
from app.core.security.passwords import hash_password
from app.core.settings import Settings
from app.core.tenants.models import Tenant
from app.core.users.models import User
from app.main import create_app

PASSWORD = "bench-password-1"
TARGET_MS = 100.0
QUERY = """query($period: AnalyticsPeriod!) { analytics(period: $period) {
  period_start period_end totals { datasets completed failed running queued records bytes }
  per_day { day status datasets records } formats { format datasets }
  top_projects { id name datasets records } top_schemas { id name datasets records }
  failure_reasons { reason count } throughput { day records seconds records_per_second }
  storage { project_id name bytes } } }"""
STATUSES = ["completed"] * 70 + ["failed"] * 15 + ["running"] * 5 + ["queued"] * 5 + ["cancelled"] * 5
FORMATS = ["json", "csv", "xml", "sql", "ndjson"]


def seed(url: str, *, projects: int, datasets: int) -> None:
    """One tenant: an Admin, a Tester in every tenth project, 20 schemas, the projects and datasets."""
    rng = random.Random(7)
    engine = make_sync_engine(url)
    now = datetime.now(UTC)
    password_hash = hash_password(PASSWORD)
    with engine.begin() as conn:
        tenant_id = conn.execute(insert(Tenant).returning(Tenant.id),  # type: ignore[arg-type]
                                 [Tenant(name="bench").model_dump(exclude={"id"})]).scalar_one()
        conn.execute(insert(User), [
            User(tenant_id=tenant_id, username=name, email=f"{name}@bench.example", role=role.value,
                 password_hash=password_hash).model_dump(exclude={"id"})
            for name, role in (("bench_admin", Role.Admin), ("bench_tester", Role.Tester))])
        admin_id, tester_id = (conn.execute(select(User.id).where(User.username == n)).scalar_one()
                               for n in ("bench_admin", "bench_tester"))
        conn.execute(insert(Project), [Project(tenant_id=tenant_id, name=f"Project {i:04d}", created_by=admin_id)
                                       .model_dump(exclude={"id"}) for i in range(projects)])
        project_ids = list(conn.execute(select(Project.id).order_by(Project.id)).scalars())
        conn.execute(insert(ProjectMember), [ProjectMember(project_id=pid, user_id=tester_id, role="view",
                                                           added_by=admin_id).model_dump()
                                             for pid in project_ids[::10]])
        conn.execute(insert(SchemaDoc), [SchemaDoc(
            tenant_id=tenant_id, name=f"schema {i}", type="json_schema", version="2020-12", size_bytes=1000,
            sha256=f"{i:064x}", storage_key=f"{i:064x}", roots=["#"], default_root="#", field_count=10,
            created_by=admin_id).model_dump(exclude={"id"}) for i in range(20)])
        schema_ids = list(conn.execute(select(SchemaDoc.id)).scalars())
        rows: list[dict[str, Any]] = []
        for i in range(datasets):
            status = rng.choice(STATUSES)
            created = now - timedelta(days=rng.uniform(0, 365))
            count = rng.randint(1_000, 1_000_000)
            finished = status in ("completed", "failed", "cancelled")
            rows.append(Dataset(
                tenant_id=tenant_id, project_id=rng.choice(project_ids), schema_id=rng.choice(schema_ids),
                name=f"dataset {i}", record_count=count, types=rng.sample(FORMATS, rng.randint(1, 3)), startable=False,
                params={"seed": i}, status=status, progress=1.0 if status == "completed" else 0.0,
                records_generated=count if status == "completed" else (count // 2 if status == "running" else 0),
                error=f"Generation failed: reason {rng.randint(1, 12)}." if status == "failed" else None,
                created_by=admin_id, created_at=created,
                started_at=created + timedelta(seconds=1) if status != "queued" else None,
                finished_at=created + timedelta(seconds=1 + count / 500_000) if finished else None,
            ).model_dump(exclude={"id"}))
        for start in range(0, len(rows), 2000):
            conn.execute(insert(Dataset), rows[start:start + 2000])
        # a running dataset without work rows is re-queued by the dispatcher's first tick: give each a live shard
        running = conn.execute(select(Dataset.id, Dataset.record_count).where(Dataset.status == "running")).all()
        conn.execute(insert(DatasetShard), [DatasetShard(
            dataset_id=did, shard_index=0, kind="generate", stop=n, status="running", attempt=1,
            lease_until=now + timedelta(days=1)).model_dump(exclude={"id"}) for did, n in running])
        done = conn.execute(select(Dataset.id, Dataset.types, Dataset.record_count)
                            .where(Dataset.status == "completed")).all()
        files = [DatasetFile(dataset_id=did, format=fmt, file_index=0, records=n, size_bytes=n * 180,
                             sha256="0" * 64, path=f"datasets/{did}/files/data-0000.{fmt}").model_dump(exclude={"id"})
                 for did, types, n in done for fmt in types]
        for start in range(0, len(files), 2000):
            conn.execute(insert(DatasetFile), files[start:start + 2000])
    if url.startswith("postgresql"):
        # rows that arrived over time have planner statistics (autovacuum); a bulk load has none yet
        with engine.connect() as conn:
            conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("ANALYZE")
    engine.dispose()


async def measure(url: str, data_dir: Path, runs: int) -> bool:
    settings = Settings(env="test", database_url=url, data_dir=data_dir, admin_username="root",
                        admin_password=PASSWORD, secret_key="bench-secret-" + "x" * 32, workers=1, warm_pool=False,
                        dispatch_interval_seconds=3600.0)
    app = create_app(settings, run_migrations=False)
    ok = True
    async with app.router.lifespan_context(app), httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
        for username in ("bench_admin", "bench_tester"):
            r = await client.post("/api/v1/users/token", data={"username": username, "password": PASSWORD})
            r.raise_for_status()
            headers = {"Authorization": f"Bearer {r.json()['access_token']}"}
            for period in ("LAST_30_DAYS", "LAST_365_DAYS"):
                async def call(period: str = period, headers: dict[str, str] = headers) -> dict[str, Any]:
                    r = await client.post("/graphql", headers=headers,
                                          json={"query": QUERY, "variables": {"period": period}})
                    body = r.json()
                    assert r.status_code == 200 and not body.get("errors"), r.text
                    return body["data"]["analytics"]

                for _ in range(2):
                    result = await call()
                times, cpu = [], []
                for _ in range(runs):
                    start, start_cpu = time.perf_counter(), time.process_time()
                    await call()
                    cpu.append((time.process_time() - start_cpu) * 1000)
                    times.append((time.perf_counter() - start) * 1000)
                median = statistics.median(times)
                flag = "" if median < TARGET_MS else f"  ! above the {TARGET_MS:.0f} ms target"
                ok = ok and median < TARGET_MS
                print(f"  {username:<13}{period:<15} datasets {result['totals']['datasets']:>6}"
                      f"  median {median:7.1f} ms  (min {min(times):.1f}, max {max(times):.1f};"
                      f" this process's CPU median {statistics.median(cpu):.1f} ms){flag}")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-pg", action="store_true", help="SQLite only")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--projects", type=int, default=1000)
    parser.add_argument("--datasets", type=int, default=10_000)
    args = parser.parse_args()
    ok = True
    for use_pg in (False, True)[:1 if args.no_pg else 2]:
        with database(use_pg) as url, tempfile.TemporaryDirectory(prefix="tdg-bench-data-") as data_dir:
            start = time.perf_counter()
            upgrade(url)
            seed(url, projects=args.projects, datasets=args.datasets)
            print(f"{'PostgreSQL' if use_pg else 'SQLite'}: {args.projects} projects, {args.datasets} datasets seeded"
                  f" in {time.perf_counter() - start:.1f} s; analytics over GraphQL (ASGI), {args.runs} runs:")
            ok = asyncio.run(measure(url, Path(data_dir), args.runs)) and ok
    print("target met" if ok else "target missed (see '!' lines)")


if __name__ == "__main__":
    main()
