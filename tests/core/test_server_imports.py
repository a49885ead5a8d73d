"""What `tdg serve` imports: the server process answers requests and cuts datasets into shards,
and its worker processes generate. Modules it imported stay in its memory for good, so the
generation engine (with faker), Alembic (migrations run in a child process at start-up), boto3
(S3 exports and bucket checks) and Pillow (avatars) are imported when first needed, not at
start-up. `tdg --help` and `tdg generate` still have the engine's command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.migrate import MigrationFailed, upgrade_apart
from tests.datasets.processes import TDG, service_env

LAZY = ("app.generation.plan", "app.generation.engine", "faker", "alembic", "boto3", "PIL")
# the server's own start: the entry point's module, the app, its start-up (migrations included)
SERVE_START = f"""
import asyncio, sys
from app.cli import app as cli
from app.main import create_app
from app.core.settings import get_settings

async def start() -> None:
    application = create_app(get_settings())
    async with application.router.lifespan_context(application):
        pass

asyncio.run(start())
print(sorted(name for name in {LAZY!r} if name in sys.modules))
"""


def test_serving_starts_without_the_engine_alembic_boto3_or_pillow(tmp_path: Path) -> None:
    env = {
        **os.environ,
        **service_env(f"sqlite:///{tmp_path / 'tdg.db'}", tmp_path / "data", TDG_WARM_POOL="false"),
    }
    done = subprocess.run(
        [sys.executable, "-c", SERVE_START],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
    assert (tmp_path / "tdg.db").stat().st_size > 0  # the child process applied the migrations


def test_the_generate_command_is_still_there(tmp_path: Path) -> None:
    done = subprocess.run([str(TDG), "--help"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "generate" in done.stdout and "serve" in done.stdout


def test_a_failed_migration_fails_the_start(tmp_path: Path) -> None:
    with pytest.raises(MigrationFailed, match="migrations failed"):
        upgrade_apart("postgresql+psycopg://nobody@127.0.0.1:1/none")  # nothing listens on port 1
