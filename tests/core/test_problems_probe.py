"""The problems-at-upload probe runs outside the API process (issue 16 item 8): compiling and
probing a schema in the server left it hundreds of MB larger for good. After an upload whose
answer lists its problems, the server has not imported the engine's compiler; the probe pool
survives a process that dies and is gone once idle; the problems cache is bounded by bytes; and
concurrent uploads on SQLite all succeed (the probe runs before the upload's first write)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, cast

import pytest

from app.core import schema_cache
from app.core.schema_cache import ProblemsCache, deep_size
from app.core.schema_probe import ProbePool, find_problems
from tests.api_client import Api
from tests.datasets.processes import service_env
from tests.support.waiting import eventually_sync

BAD = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["count"],
    "properties": {"count": {"type": "integer", "minimum": 10, "maximum": 5}, "note": {"type": "string"}},
}
ENGINE = ("app.generation.problems", "app.generation.engine", "app.generation.plan")
# the server's own start, then an upload over ASGI with a real token
UPLOAD_IN_SERVER = f"""
import asyncio, json, sys
import httpx
from app.main import create_app
from app.core.settings import get_settings

async def main() -> None:
    application = create_app(get_settings())
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            token = (await client.post(
                "/api/v1/users/token", data={{"username": "root", "password": "root-password-123"}}
            )).json()["access_token"]
            r = await client.post(
                "/api/v1/schemas", headers={{"Authorization": f"Bearer {{token}}"}},
                files={{"file": ("bad.json", json.dumps({BAD!r}).encode())}},
            )
            assert r.status_code == 201, r.text
            print(json.dumps(r.json()["problems"]))
    print(json.dumps(sorted(name for name in {ENGINE!r} if name in sys.modules)))

asyncio.run(main())
"""


def test_upload_lists_problems_without_compiling_in_the_server(tmp_path: Path) -> None:
    env = {
        **os.environ,
        **service_env(f"sqlite:///{tmp_path / 'tdg.db'}", tmp_path / "data", TDG_WARM_POOL="false"),
    }
    done = subprocess.run(
        [sys.executable, "-c", UPLOAD_IN_SERVER],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    problems, imported = (json.loads(line) for line in done.stdout.strip().splitlines()[-2:])
    assert {"path": "count", "reason": "no integer lies between 10 and 5", "blocking": True} in problems
    assert imported == []


def test_probe_pool_survives_a_dead_process_and_closes_when_idle() -> None:
    pool = ProbePool(size=1, tasks_per_pool=3, idle_seconds=0.5)
    try:
        with pytest.raises(BrokenProcessPool):
            pool.submit(os._exit, 3).result(timeout=120)
        found, refusal = pool.submit(find_problems, json.dumps(BAD).encode(), "bad.json", None).result(
            timeout=120
        )
        assert refusal is None and [p["path"] for p in found if p["blocking"]] == ["count"]
        _, refusal = pool.submit(find_problems, json.dumps(BAD).encode(), "bad.json", "nope").result(
            timeout=120
        )
        assert refusal is not None and "nope" in refusal
        # more submits than tasks_per_pool: a fresh pool takes over, every answer arrives
        pids = {pool.submit(os.getpid).result(timeout=120) for _ in range(4)}
        assert os.getpid() not in pids and len(pids) >= 2
        eventually_sync(lambda: not pool.running, timeout=60, interval=0.1, what="the idle pool shut down")
    finally:
        pool.shutdown()


def test_problems_cache_is_bounded_by_bytes() -> None:
    small = [{"path": "a", "reason": "r", "blocking": True}]
    large = [
        {"path": f"field_{i}", "reason": "no integer lies between 10 and 5", "blocking": True}
        for i in range(200)
    ]
    one = deep_size(large) + deep_size(("k0", None))
    cache = ProblemsCache(max_bytes=int(2.5 * one))
    for i in range(4):
        cache.put((f"k{i}", None), large)
    assert ("k0", None) not in cache and ("k1", None) not in cache and ("k3", None) in cache
    assert cache.total_bytes <= cache.max_bytes
    assert cache.get(("k3", None)) == large
    # many small lists fit where two large ones did
    for i in range(50):
        cache.put((f"s{i}", None), small)
    assert len(cache) > 20 and cache.total_bytes <= cache.max_bytes
    tiny = ProblemsCache(max_bytes=100)
    tiny.put(("k", None), large)  # bigger than the whole budget: not kept
    assert len(tiny) == 0 and tiny.total_bytes == 0


class _DoneOnReturn(ProbePool):
    """A probe pool whose probes have finished by the time `submit` returns: what a fast probe
    on a busy server does, deterministically."""

    def submit(self, fn: Any, *args: Any) -> Future[Any]:
        future = super().submit(fn, *args)
        future.result()
        return future


@pytest.mark.timeout(120)  # the bug this guards against hung the upload for good
async def test_a_probe_done_before_its_callback_is_added_does_not_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    pool = _DoneOnReturn(size=1)
    monkeypatch.setattr(schema_cache, "probe_pool", lambda: pool)
    raw = b'{"type": "object", "required": ["n"], "properties": {"n": {"type": "integer", "minimum": 10, "maximum": 5}}}'
    key = f"done-on-return-{os.getpid()}"
    try:
        found = await schema_cache.problems_of(cast(Any, None), key, "s.json", None, raw=raw)
    finally:
        pool.shutdown()
    assert [p["path"] for p in found] == ["n"] and found[0]["blocking"]
    assert (key, None) not in schema_cache._probing  # the callback ran and let go of the probe
    assert schema_cache.problems_cache.get((key, None)) == found


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_concurrent_uploads_on_sqlite_all_succeed(api: Api) -> None:
    _, admin = await api.create_tenant()

    def schema(seed: int) -> bytes:
        properties = {f"p{seed}_{i}": {"type": "string", "maxLength": 5 + i % 40} for i in range(3000)}
        return json.dumps({**BAD, "properties": {**BAD["properties"], **properties}}).encode()

    answers = await asyncio.gather(
        *(api.request("POST", "/schemas", admin, files={"file": (f"s{i}.json", schema(i))}) for i in range(8))
    )
    assert [r.status_code for r in answers] == [201] * 8, [
        r.text[:300] for r in answers if r.status_code != 201
    ]
    for r in answers:
        assert [p["path"] for p in r.json()["problems"] if p["blocking"]] == ["count"]


def test_a_pattern_nested_past_the_stack_is_a_refusal_not_a_crash() -> None:
    """350-480 nested groups pass the loader's regex check (which refuses from about 500) and then
    overflowed the stack inside jsonschema's pattern check: the probe raised RecursionError and the
    upload answered 500 (CI, hostile-input seed 2864005589). Now a refusal sentence (422)."""
    for depth in (350, 450):
        schema = {"type": "object", "required": ["a"],
                  "properties": {"a": {"type": "string", "pattern": "(" * depth + "a" + ")" * depth}}}
        problems, refusal = find_problems(json.dumps(schema).encode(), "s.json", None)
        assert problems == [] and refusal is not None and "nested too deeply" in refusal
