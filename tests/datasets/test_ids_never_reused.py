"""Ids are never reused (issue 28): for every resource a client addresses by id, over the API and on
both databases, create, delete, create gives a larger id than the deleted one; and every table
with an integer key is AUTOINCREMENT on SQLite (PostgreSQL draws keys from a sequence)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg
from sqlalchemy.engine import make_url

from app.core.settings import Settings
from tests.api_client import USER_PASSWORD, Actor, Api, unique
from tests.datasets.flow import ORDER_JSON, create_dataset, upload_schema, wait_for

WEBHOOK = {"name": "hook", "provider": "webhook", "config": {"url": "https://93.184.215.14/receive"},
           "events": ["dataset.completed"]}
S3 = {"name": "store", "provider": "s3", "config": {
    "bucket": "tdg-ids", "endpoint_url": "https://93.184.215.14:9000", "access_key_id": "AKIAIDS", "secret_access_key": "x"}}


async def _twice(make: Callable[[], Awaitable[int]], remove: Callable[[int], Awaitable[Any]]) -> tuple[int, int]:
    """(the id deleted, the id of the next one made): the deleted row was the newest of its table."""
    first = await make()
    await remove(first)
    return first, await make()


async def test_create_delete_create_gives_a_larger_id(api: Api) -> None:
    _, admin = await api.create_tenant()
    project_id = (await api.create_project(admin, "kept"))["project_id"]
    schema_id = (await upload_schema(api, admin, ORDER_JSON, "order.schema.json"))["schema_id"]

    async def project() -> int:
        return int((await api.create_project(admin, unique("p")))["project_id"])

    async def schema() -> int:
        # another content each time: an upload of the same bytes is another row all the same
        content = json.dumps({**json.loads(ORDER_JSON), "$comment": unique("c")}).encode()
        return int((await upload_schema(api, admin, content, "order.schema.json"))["schema_id"])

    async def constraint_set() -> int:
        body = {"name": unique("cs"), "schema_id": schema_id, "rules": []}
        return int((await api.call("POST", "/constraints", admin, 201, json=body))["constraint_id"])

    async def dataset() -> int:
        made = await create_dataset(api, admin, project_id, schema_id, 5, types=["csv"])
        await wait_for(api, admin, made["dataset_id"])
        return int(made["dataset_id"])

    async def token() -> int:
        return int((await api.call("POST", "/settings/tokens", admin, 201, json={"name": unique("t")}))["token_id"])

    def integration(body: dict[str, Any]) -> Callable[[], Awaitable[int]]:
        async def make() -> int:
            made = await api.call("POST", "/integrations", admin, 201, json={**body, "name": unique(body["name"])})
            return int(made["integration_id"])
        return make

    async def delete_account(user_id: int) -> None:
        # the only way a user goes: deactivated and anonymised; the row stays and keeps its id
        me = await api.login(next(u for u in users if u.id == user_id).username, USER_PASSWORD)
        await api.call("POST", "/settings/delete", me, 200, json={"password": USER_PASSWORD})

    users: list[Actor] = []

    async def tracked_user() -> int:
        made = await api.create_user(admin, "Tester")
        users.append(made)
        return made.id

    cases: dict[str, tuple[Callable[[], Awaitable[int]], Callable[[int], Awaitable[Any]]]] = {
        "project": (project, lambda i: api.call("DELETE", f"/projects/{i}", admin, 200)),
        "schema": (schema, lambda i: api.call("DELETE", f"/schemas/{i}", admin, 200)),
        "constraint set": (constraint_set, lambda i: api.call("DELETE", f"/constraints/{i}", admin, 200)),
        "dataset": (dataset, lambda i: api.call("DELETE", f"/datasets/{i}", admin, 200)),
        "api token": (token, lambda i: api.call("DELETE", f"/settings/tokens/{i}", admin, 200)),
        "webhook": (integration(WEBHOOK), lambda i: api.call("DELETE", f"/integrations/{i}", admin, 200)),
        "s3 target": (integration(S3), lambda i: api.call("DELETE", f"/integrations/{i}", admin, 200)),
        "user": (tracked_user, delete_account),
    }
    for name, (make, remove) in cases.items():
        deleted, next_one = await _twice(make, remove)
        assert next_one > deleted, name


async def test_notifications_keep_counting_after_the_newest_is_gone(api: Api, settings: Settings) -> None:
    """Notifications are never deleted over the API (marked read only): the newest is deleted from
    the database, as a purge would, and the next one still gets a larger id."""
    _, admin = await api.create_tenant()
    project_id = (await api.create_project(admin, "n"))["project_id"]
    schema_id = (await upload_schema(api, admin, ORDER_JSON, "order.schema.json"))["schema_id"]

    async def notified() -> int:
        made = await create_dataset(api, admin, project_id, schema_id, 5, types=["csv"])
        assert (await wait_for(api, admin, made["dataset_id"]))["status"] == "completed"
        listed = await api.call("GET", "/notifications", admin, 200)
        return max(int(n["notification_id"]) for n in listed)

    first = await notified()
    _execute(settings.database_url, "DELETE FROM notification WHERE id = %s", first)
    assert await notified() > first


def _execute(url: str, statement: str, *args: object) -> None:
    u = make_url(url)
    if u.get_backend_name() == "sqlite":
        with sqlite3.connect(str(u.database)) as conn:
            conn.execute(statement.replace("%s", "?"), args)
        return
    with psycopg.connect(host=u.host, port=u.port, user=u.username, dbname=u.database, autocommit=True) as conn:
        conn.execute(statement, args)  # type: ignore[arg-type]


async def test_every_integer_key_is_drawn_from_a_counter_that_never_goes_back(settings: Settings) -> None:
    """SQLite: every table keyed by one integer is AUTOINCREMENT. PostgreSQL: every such key has a
    sequence behind it (sequences never hand a value out twice)."""
    u = make_url(settings.database_url)
    if u.get_backend_name() == "sqlite":
        with sqlite3.connect(str(u.database)) as conn:
            tables = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())
            keyed = [name for name in tables
                     if [r[2] for r in conn.execute(f'PRAGMA table_info("{name}")') if r[5]] == ["INTEGER"]]
        assert len(keyed) >= 17
        assert [name for name in keyed if "AUTOINCREMENT" not in tables[name]] == []
        return
    with psycopg.connect(host=u.host, port=u.port, user=u.username, dbname=u.database) as conn:
        rows = conn.execute("""
            SELECT c.table_name, c.column_default, c.is_identity FROM information_schema.columns c
            JOIN information_schema.key_column_usage k
              ON k.table_name = c.table_name AND k.column_name = c.column_name
            JOIN information_schema.table_constraints t
              ON t.constraint_name = k.constraint_name AND t.constraint_type = 'PRIMARY KEY'
            WHERE c.table_schema = 'public' AND c.data_type IN ('integer', 'bigint')
              AND (SELECT count(*) FROM information_schema.key_column_usage k2
                   WHERE k2.constraint_name = k.constraint_name) = 1""").fetchall()
    assert len(rows) >= 17
    assert [r[0] for r in rows if not ((r[1] or "").startswith("nextval(") or r[2] == "YES")] == []
