"""Compiled plans are cached per process by (schema content, rules, params but the seed, record
count) (issue 20): a second preview of the same inputs with another seed compiles nothing, any
other change of what the plan is built from compiles anew, and the bytes are those of an uncached
compile, whatever was cached before."""

from __future__ import annotations

import io
import json
import uuid
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from app.core.database import make_sync_engine
from app.core.generation import PlanCacheInfo, clear_plan_cache, plan_cache_info
from app.core.jobs.plans import compile_dataset
from app.core.library.models import SchemaDoc
from app.core.settings import Settings
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from app.rest.operations import op
from tests.api_client import Actor, Api
from tests.datasets.flow import ORDER_JSON, upload_schema

RULES = [{"path": "amount", "min": 10, "max": 20}, {"path": "status", "enum": ["paid", "shipped"]}]
OTHER_RULES = [{"path": "status", "enum": ["cancelled"]}]


def _unique_schema() -> bytes:
    """The bench schema with a comment of its own: a content no other test compiled in this process."""
    doc = json.loads(ORDER_JSON)
    doc["$comment"] = f"plan cache test {uuid.uuid4()}"
    return json.dumps(doc).encode()


async def _preview(api: Api, actor: Actor, schema_id: int, **args: Any) -> dict[str, Any]:
    return (await api.gql_data(op("Preview").document, {"schema_id": schema_id, **args}, actor))["preview"]


def _delta(before: PlanCacheInfo) -> tuple[int, int]:
    """(hits, misses) since `before`."""
    now = plan_cache_info()
    return now.hits - before.hits, now.misses - before.misses


def _uncached(content: bytes, rules: list[dict[str, Any]], params: dict[str, Any], count: int) -> str:
    """The engine's own compile and write, no service and no cache."""
    from app.generation.rules import parse_rules

    loaded = load_schema(content, "order.schema.json")
    parsed = parse_rules(loaded.field_tree(params.get("root")), rules) if rules else []
    plan = compile_plan(loaded, parsed, params, record_count=count)
    out = io.BytesIO()
    plan.write("json", out)
    return out.getvalue().decode()


async def test_a_second_preview_compiles_nothing_and_writes_the_uncached_bytes(api: Api) -> None:
    _, admin = await api.create_tenant()
    content = _unique_schema()
    sid = (await upload_schema(api, admin, content, "order.schema.json"))["schema_id"]

    before = plan_cache_info()
    first = await _preview(api, admin, sid, count=20, params={"seed": 1})
    assert _delta(before) == (0, 1)  # compiled once
    before = plan_cache_info()
    second = await _preview(api, admin, sid, count=20, params={"seed": 2})
    again = await _preview(api, admin, sid, count=20, params={"seed": 1})
    rest = await api.call(
        "POST", f"/schemas/{sid}/preview", admin, 200, json={"count": 20, "params": {"seed": 2}}
    )
    assert _delta(before) == (3, 0)  # another seed, the same seed, the REST row: nothing compiled
    assert second["content"] != first["content"]
    assert again["content"] == first["content"] and rest["content"] == second["content"]

    # with the cache emptied, each seed compiles afresh and writes the same bytes; so does the engine alone
    for seed, shown in ((2, second), (1, first)):
        clear_plan_cache()
        fresh = await _preview(api, admin, sid, count=20, params={"seed": seed})
        assert plan_cache_info().misses == 1
        assert fresh["content"] == shown["content"]
        assert _uncached(content, [], {"seed": seed}, 20) == shown["content"]


async def test_any_change_of_what_the_plan_is_built_from_compiles_anew(api: Api) -> None:
    _, admin = await api.create_tenant()
    content = _unique_schema()
    sid = (await upload_schema(api, admin, content, "order.schema.json"))["schema_id"]
    rules = await api.call(
        "POST", "/constraints", admin, 201, json={"name": "r", "schema_id": sid, "rules": RULES}
    )
    cid = rules["constraint_id"]

    async def compiles(**args: Any) -> tuple[bool, dict[str, Any]]:
        """Whether this preview compiled (a miss), and its answer."""
        before = plan_cache_info()
        shown = await _preview(api, admin, sid, **args)
        hits, misses = _delta(before)
        assert hits + misses == 1
        return misses == 1, shown

    assert (await compiles(count=30, params={"seed": 5}))[0]
    assert (await compiles(count=30, params={"seed": 5}, constraint_set_id=cid))[0]
    # the same rules with another seed: cached; its records follow the rules
    compiled, shown = await compiles(count=30, params={"seed": 6}, constraint_set_id=cid)
    assert not compiled
    assert {r["status"] for r in json.loads(shown["content"])} <= {"paid", "shipped"}
    assert shown["content"] == _uncached(content, RULES, {"seed": 6}, 30)

    # the constraint set's rules change: compiled anew, with the new rules
    await api.call("PUT", f"/constraints/{cid}", admin, 200, json={"rules": OTHER_RULES})
    compiled, shown = await compiles(count=30, params={"seed": 6}, constraint_set_id=cid)
    assert compiled
    assert {r["status"] for r in json.loads(shown["content"])} == {"cancelled"}
    assert shown["content"] == _uncached(content, OTHER_RULES, {"seed": 6}, 30)

    # every param but the seed, and the record count, are part of the key
    for args in (
        {"count": 31, "params": {"seed": 5}},
        {"count": 30, "params": {"seed": 5, "null_rate": 0.5}},
        {"count": 30, "params": {"seed": 5, "locale": "de_DE"}},
        {"count": 30, "params": {"seed": 5, "locales": ["de_DE", "fr_FR"]}},
    ):
        compiled, shown = await compiles(**args)
        assert compiled, args
        assert shown["content"] == _uncached(content, [], args["params"], args["count"]), args
    assert not (await compiles(count=30, params={"seed": 7, "null_rate": 0.5}))[0]

    # other schema bytes (one character of a comment): compiled anew
    changed = content.replace(b"plan cache test", b"plan cache test!")
    other = (await upload_schema(api, admin, changed, "order.schema.json"))["schema_id"]
    before = plan_cache_info()
    await _preview(api, admin, other, count=30, params={"seed": 5})
    assert _delta(before) == (0, 1)


@dataclass(frozen=True)
class _Inputs:
    params: dict[str, Any]
    rules: list[dict[str, Any]]
    record_count: int


async def test_a_worker_compiles_a_schema_once_for_datasets_of_any_seed(api: Api, settings: Settings) -> None:
    """The workers' compile step (local pool and Celery alike): a second dataset of the same
    inputs but its seed reuses the compiled plan, and writes the uncached bytes."""
    _, admin = await api.create_tenant()
    content = _unique_schema()
    sid = (await upload_schema(api, admin, content, "order.schema.json"))["schema_id"]
    with Session(make_sync_engine(settings.database_url)) as session:
        schema = session.get(SchemaDoc, sid)
        assert schema is not None
    before = plan_cache_info()
    plans = [compile_dataset(settings, _Inputs({"seed": seed}, RULES, 1000), schema) for seed in (11, 12)]
    assert _delta(before) == (1, 1)
    for seed, plan in zip((11, 12), plans, strict=True):
        out = io.BytesIO()
        plan.write("json", out)
        assert out.getvalue().decode() == _uncached(content, RULES, {"seed": seed}, 1000)
