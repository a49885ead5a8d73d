"""Real processes for the dataset tests: `tdg serve` and `tdg worker` subprocesses in their own
process groups (so kill -9 takes a worker's pool children too), a Redis database claimed for one
test, and the bytes an uninterrupted single-process run writes for comparison."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import httpx
import redis

from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from tests.conftest import CHEAP_PASSWORD_HASHING
from tests.support.ports import free_port as free_port  # the dataset tests' servers take it from here
from tests.support.waiting import eventually_sync

# the `tdg` of the interpreter running the tests: the checkout under test, wherever it is
TDG = Path(sys.executable).parent / "tdg"
REDIS_HOST, REDIS_PORT = "127.0.0.1", 6379
_CLAIM_KEY = "tdg-test-claim"


@contextmanager
def redis_database() -> Iterator[str]:
    """Claim an empty Redis database (1-15) for this test, give its URL, flush it afterwards."""
    token = uuid.uuid4().hex
    for db in range(1, 16):
        client = redis.Redis(host=REDIS_HOST, port=REDIS_PORT, db=db)
        if client.dbsize() == 0 and client.set(_CLAIM_KEY, token, nx=True, ex=1800):
            try:
                yield f"redis://{REDIS_HOST}:{REDIS_PORT}/{db}"
            finally:
                client.flushdb()
                client.close()
            return
        client.close()
    raise RuntimeError("no free Redis database among 1-15")


class Proc:
    """A `tdg` subprocess leading its own process group, its output in a log file."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        self._fh = open(log, "ab")  # noqa: SIM115 - closed in stop()
        self.popen = subprocess.Popen([str(TDG), *args], env={**os.environ, **env}, stdout=self._fh,
                                      stderr=subprocess.STDOUT, start_new_session=True)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for_output(self, needle: str, timeout: float = 300) -> None:
        def seen() -> bool:
            assert self.popen.poll() is None, f"{self.popen.args} exited early:\n{self.output()[-3000:]}"
            return needle in self.output()

        eventually_sync(seen, timeout=timeout, what=f"{needle!r} in the output of {self.popen.args}")

    def kill9(self) -> None:
        """SIGKILL the whole process group: the process and every pool child, no clean-up."""
        with suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait(timeout=10)

    def stop(self) -> None:
        if self.popen.poll() is None:
            try:
                os.killpg(self.popen.pid, signal.SIGTERM)
                self.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill9()
            except ProcessLookupError:
                pass
        self._fh.close()


def service_env(database_url: str, data_dir: Path, **extra: str) -> dict[str, str]:
    return {"TDG_DATABASE_URL": database_url, "TDG_DATA_DIR": str(data_dir), "TDG_ENV": "test",
            "TDG_SECRET_KEY": "test-secret-key-" + "x" * 32, "TDG_ADMIN_USERNAME": "root",
            "TDG_ADMIN_PASSWORD": "root-password-123",
            **{f"TDG_{k.upper()}": str(v) for k, v in CHEAP_PASSWORD_HASHING.items()}, **extra}


def start_serve(env: dict[str, str], log: Path, port: int, *args: str, timeout: float = 300) -> Proc:
    """`tdg serve --port PORT [args]`, once it answers (its process stopped if it never does)."""
    proc = Proc(["serve", "--port", str(port), "--log-level", "warning", *args], env, log)

    def answering() -> bool:
        assert proc.popen.poll() is None, f"tdg serve exited:\n{proc.output()[-3000:]}"
        try:
            return httpx.get(f"http://127.0.0.1:{port}/api/v1/users/me", timeout=2).status_code == 401
        except httpx.HTTPError:
            return False

    try:
        eventually_sync(answering, timeout=timeout, interval=0.2, what="tdg serve answering")
    except AssertionError as exc:
        proc.stop()
        raise AssertionError(f"{exc}\n{proc.output()[-3000:]}") from None
    return proc


def start_worker(env: dict[str, str], log: Path, name: str) -> Proc:
    proc = Proc(["worker", "--concurrency", "1", "--name", f"{name}@%h"], env, log)
    proc.wait_for_output(" ready.")
    return proc


_expected: dict[tuple[str, str, int, str], list[str]] = {}


def expected_sha256(schema: bytes, filename: str, params: dict[str, Any], record_count: int, fmt: str) -> str:
    """sha256 of the file an uninterrupted single process writes for these inputs."""
    (digest,) = expected_file_sha256s(schema, filename, params, record_count, fmt)
    return digest


def expected_file_sha256s(schema: bytes, filename: str, params: dict[str, Any], record_count: int,
                          fmt: str) -> list[str]:
    """sha256 of each file (`records_per_file`) an uninterrupted single process writes for these
    inputs (computed once per test session: the SQLite and PostgreSQL runs compare with the same bytes)."""
    key = (hashlib.sha256(schema).hexdigest(), json.dumps(params, sort_keys=True), record_count, fmt)
    if key not in _expected:
        plan = compile_plan(load_schema(schema, filename), [], params, record_count=record_count)
        _expected[key] = [_file_sha256(plan, fmt, index) for index in range(len(plan.file_ranges()))]
    return _expected[key]


class _Hash:
    def __init__(self) -> None:
        self.h = hashlib.sha256()

    def write(self, data: bytes) -> int:
        self.h.update(data)
        return len(data)


def _file_sha256(plan: Any, fmt: str, index: int) -> str:
    out = _Hash()
    plan.write_file(fmt, out, index)
    return out.h.hexdigest()
