"""Analytics: generation statistics aggregated in SQL (SQLite and PostgreSQL) over exactly the
datasets the `datasets` list shows the caller: tenants, project membership, an optional project,
the period's first day included and days counted in UTC."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.core.datasets import service as datasets
from app.core.datasets.models import DatasetFile, DatasetStatus
from app.core.datasets.payloads import DatasetCreate
from app.core.models import Role
from app.core.principal import Principal
from app.core.settings import Settings
from tests.api_client import Actor, Api

QUERY = """query($period: AnalyticsPeriod!, $project_id: Int) { analytics(period: $period, project_id: $project_id) {
  period_start period_end totals { datasets completed failed running queued records bytes }
  per_day { day status datasets records } formats { format datasets }
  top_projects { id name datasets records } top_schemas { id name datasets records }
  failure_reasons { reason count } throughput { day records seconds records_per_second }
  storage { project_id name bytes } } }"""
PERSON = '{"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "maxLength": 20}}}'
TODAY = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # the rows below are shaped by hand; a dispatcher tick would re-queue a `running` one without shards
    return settings.model_copy(update={"dispatch_interval_seconds": 3600.0})


def ago(days: int, **delta: float) -> datetime:
    return TODAY - timedelta(days=days) + timedelta(**delta)


async def _dataset(app: Any, actor: Actor, role: Role, project_id: int, schema_id: int, types: list[str],
                   status: DatasetStatus, created: datetime, *, records: int = 0, seconds: float | None = None,
                   error: str | None = None, files: dict[str, int] | None = None) -> int:
    """A dataset created by the service, then given its state, timestamps and files directly."""
    principal = Principal(actor.id, actor.tenant_id, actor.username, role, via="jwt")
    async with app.state.sessionmaker() as session:
        row = await datasets.create(session, principal, app.state.settings, DatasetCreate(
            name=f"ds-{status.value}", project_id=project_id, schema_id=schema_id, record_count=max(records, 1),
            types=types, params={"deferred": True, "seed": 1}))
        row.status, row.records_generated, row.error, row.created_at = status.value, records, error, created
        if seconds is not None:
            row.started_at, row.finished_at = created, created + timedelta(seconds=seconds)
        for i, (fmt, size) in enumerate((files or {}).items()):
            session.add(DatasetFile(dataset_id=row.id, format=fmt, file_index=0, records=records, size_bytes=size,
                                    sha256=f"{i:064d}", path=f"datasets/{row.id}/{fmt}"))
        await session.commit()
        assert row.id is not None
        return row.id


async def _analytics(api: Api, actor: Actor, period: str = "LAST_30_DAYS", project_id: int | None = None) -> Any:
    return (await api.gql_data(QUERY, {"period": period, "project_id": project_id}, actor))["analytics"]


async def _schema(api: Api, actor: Actor, name: str) -> int:
    return (await api.call("POST", "/schemas", actor, 201, json={"name": name, "content": PERSON}))["schema_id"]


async def test_analytics_aggregates_what_each_caller_may_see(api: Api, app: Any) -> None:
    _, admin = await api.create_tenant()
    manager = await api.create_user(admin, "Manager")
    tester = await api.create_user(admin, "Tester")
    alpha = (await api.create_project(admin, "Alpha"))["project_id"]
    beta = (await api.create_project(admin, "Beta"))["project_id"]
    gamma = (await api.create_project(manager, "Gamma"))["project_id"]
    await api.add_member(admin, alpha, tester.id, "view")
    people, orders = await _schema(api, admin, "people"), await _schema(api, admin, "orders")
    _, other_admin = await api.create_tenant()
    other = (await api.create_project(other_admin, "Elsewhere"))["project_id"]
    other_schema = await _schema(api, other_admin, "theirs")

    S = DatasetStatus
    A = (app, admin, Role.Admin)
    await _dataset(*A, alpha, people, ["json", "csv"], S.completed, ago(0), records=1000, seconds=10,
                   files={"json": 5000, "csv": 3000})
    await _dataset(*A, alpha, people, ["json"], S.failed, ago(1), error="boom A")
    await _dataset(*A, beta, orders, ["xml"], S.completed, ago(2), records=500, seconds=4, files={"xml": 7000})
    await _dataset(*A, beta, orders, ["xml"], S.failed, ago(2), error="boom A")
    await _dataset(app, manager, Role.Manager, gamma, people, ["json"], S.running, ago(0), records=200)
    await _dataset(app, manager, Role.Manager, gamma, people, ["sql", "json"], S.queued, ago(0))
    await _dataset(*A, beta, people, ["csv"], S.failed, ago(0), error="boom B")
    # outside the last 7 days (the first of them starts at 00:00 UTC six days ago), inside 30
    await _dataset(*A, alpha, people, ["json"], S.completed, ago(10), records=300, seconds=3, files={"json": 999})
    await _dataset(*A, alpha, people, ["json"], S.queued, ago(6, hours=-12))  # 00:00:00 of the first day: in
    await _dataset(*A, alpha, people, ["json"], S.queued, ago(6, hours=-12, seconds=-1))  # a second before: out
    await _dataset(app, other_admin, Role.Admin, other, other_schema, ["json"], S.completed, ago(0), records=5000,
                   seconds=1, files={"json": 10**12})

    week = await _analytics(api, admin, "LAST_7_DAYS")
    assert week["period_end"] == TODAY.date().isoformat()
    assert week["period_start"] == ago(6).date().isoformat()
    assert week["totals"] == {"datasets": 8, "completed": 2, "failed": 3, "running": 1, "queued": 2,
                              "records": 1700.0, "bytes": 15000.0}
    d0, d1, d2, d6 = (ago(n).date().isoformat() for n in (0, 1, 2, 6))
    assert week["per_day"] == [
        {"day": d6, "status": "queued", "datasets": 1, "records": 0.0},
        {"day": d2, "status": "completed", "datasets": 1, "records": 500.0},
        {"day": d2, "status": "failed", "datasets": 1, "records": 0.0},
        {"day": d1, "status": "failed", "datasets": 1, "records": 0.0},
        {"day": d0, "status": "completed", "datasets": 1, "records": 1000.0},
        {"day": d0, "status": "failed", "datasets": 1, "records": 0.0},
        {"day": d0, "status": "queued", "datasets": 1, "records": 0.0},
        {"day": d0, "status": "running", "datasets": 1, "records": 200.0},
    ]
    assert week["formats"] == [{"format": "json", "datasets": 5}, {"format": "csv", "datasets": 2},
                               {"format": "xml", "datasets": 2}, {"format": "sql", "datasets": 1}]
    assert week["top_projects"] == [{"id": alpha, "name": "Alpha", "datasets": 3, "records": 1000.0},
                                    {"id": beta, "name": "Beta", "datasets": 3, "records": 500.0},
                                    {"id": gamma, "name": "Gamma", "datasets": 2, "records": 200.0}]
    assert week["top_schemas"] == [{"id": people, "name": "people", "datasets": 6, "records": 1200.0},
                                   {"id": orders, "name": "orders", "datasets": 2, "records": 500.0}]
    assert week["failure_reasons"] == [{"reason": "boom A", "count": 2}, {"reason": "boom B", "count": 1}]
    assert week["throughput"] == [
        {"day": d2, "records": 500.0, "seconds": 4.0, "records_per_second": 125.0},
        {"day": d0, "records": 1000.0, "seconds": 10.0, "records_per_second": 100.0}]
    # storage is all time: the 10-day-old file counts
    assert week["storage"] == [{"project_id": alpha, "name": "Alpha", "bytes": 8999.0},
                               {"project_id": beta, "name": "Beta", "bytes": 7000.0}]

    month = await _analytics(api, admin)
    assert month["period_start"] == ago(29).date().isoformat()
    assert (month["totals"]["datasets"], month["totals"]["records"]) == (10, 2000.0)
    assert month["throughput"][0] == {"day": ago(10).date().isoformat(), "records": 300.0, "seconds": 3.0,
                                      "records_per_second": 100.0}

    # a Tester sees only the projects they belong to; a project they cannot see is 404
    mine = await _analytics(api, tester)
    assert mine["totals"] == {"datasets": 5, "completed": 2, "failed": 1, "running": 0, "queued": 2,
                              "records": 1300.0, "bytes": 8999.0}
    assert [p["id"] for p in mine["top_projects"]] == [alpha]
    assert [p["project_id"] for p in mine["storage"]] == [alpha]
    body = await api.graphql(QUERY, {"period": "LAST_30_DAYS", "project_id": beta}, tester)
    assert body["errors"][0]["extensions"]["status"] == 404
    assert body["errors"][0]["message"] == f"Project {beta} was not found."
    # a Manager sees the project they created; one project narrows an Admin's view
    assert (await _analytics(api, manager))["totals"]["datasets"] == 2
    only_beta = await _analytics(api, admin, project_id=beta)
    assert only_beta["totals"]["datasets"] == 3 and [p["id"] for p in only_beta["top_projects"]] == [beta]
    assert only_beta["storage"] == [{"project_id": beta, "name": "Beta", "bytes": 7000.0}]

    # other tenants: theirs only, or nothing at all; the SuperUser sees every tenant
    theirs = await _analytics(api, other_admin)
    assert theirs["totals"]["records"] == 5000.0 and theirs["storage"][0]["bytes"] == 1e12
    _, empty_admin = await api.create_tenant()
    nothing = await _analytics(api, empty_admin, "LAST_365_DAYS")
    assert nothing["totals"] == {"datasets": 0, "completed": 0, "failed": 0, "running": 0, "queued": 0,
                                 "records": 0.0, "bytes": 0.0}
    assert all(nothing[k] == [] for k in ("per_day", "formats", "top_projects", "top_schemas", "failure_reasons",
                                          "throughput", "storage"))
    assert (await api.graphql(QUERY, {"period": "LAST_30_DAYS", "project_id": alpha}, empty_admin)
            )["errors"][0]["extensions"]["status"] == 404
    assert api.root is not None
    everyone = await _analytics(api, api.root, "LAST_90_DAYS")
    assert everyone["totals"]["datasets"] == 11 and everyone["totals"]["bytes"] == 10**12 + 15999
