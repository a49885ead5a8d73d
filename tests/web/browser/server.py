"""A real `tdg serve` in a subprocess, on a free port, against a fresh database, for the browser tests."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.conftest import scratch_pg_database
from tests.support.ports import free_port

ROOT = Path(__file__).resolve().parents[3]
ADMIN_USERNAME = "root"
ADMIN_PASSWORD = "root-password-123"
# a development knob: serve another build of web/ (e.g. `vite build --outDir /tmp/x`) instead of the
# committed app/web/static, through the same create_app (tdg serve has no option for it)
WEB_DIR_OVERRIDE = os.environ.get("TDG_BROWSER_WEB_DIR")


@dataclass
class Server:
    backend: str
    url: str
    log_path: Path
    process: subprocess.Popen[bytes]

    def log_tail(self, lines: int = 80) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])




@contextmanager
def database(backend: str, workdir: Path) -> Iterator[str]:
    """A fresh, empty database (tdg serve applies the migrations at start-up)."""
    if backend == "sqlite":
        yield f"sqlite:///{workdir / 'tdg.db'}"
        return
    with scratch_pg_database("tdg_browser") as url:
        yield url


def _command(port: int) -> list[str]:
    if WEB_DIR_OVERRIDE:
        code = ("import sys, uvicorn; from pathlib import Path; from app.cli import serve_settings; "
                "from app.core.settings import get_settings; from app.main import create_app; "
                "port = int(sys.argv[2]); settings = serve_settings(get_settings(), '127.0.0.1', port); "
                "uvicorn.run(create_app(settings, web_dir=Path(sys.argv[1])), host='127.0.0.1', port=port)")
        return [sys.executable, "-c", code, WEB_DIR_OVERRIDE, str(port)]
    return [str(ROOT / ".venv" / "bin" / "tdg"), "serve", "--port", str(port)]


@contextmanager
def running_server(backend: str, database_url: str, workdir: Path, extra_env: dict[str, str] | None = None,
                   ready_timeout: float = 300.0) -> Iterator[Server]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TDG_")}
    env.update({
        "TDG_DATABASE_URL": database_url,
        "TDG_DATA_DIR": str(workdir / "data"),
        "TDG_ADMIN_USERNAME": ADMIN_USERNAME,
        "TDG_ADMIN_PASSWORD": ADMIN_PASSWORD,
        "TDG_SECRET_KEY": "browser-test-secret-" + "k" * 32,
        "TDG_WEBHOOK_ALLOW_PRIVATE": "true",
        "TDG_WORKERS": "2",
        # the suite's cheap argon2 cost (production refuses it): logins are not what these tests time
        "TDG_PASSWORD_HASH_TIME_COST": "1",
        "TDG_PASSWORD_HASH_MEMORY_KIB": "8",
        **(extra_env or {}),
    })
    log_path = workdir / "tdg-serve.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(_command(port), cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    server = Server(backend, f"http://127.0.0.1:{port}", log_path, process)
    try:
        _wait_ready(server, ready_timeout)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _wait_ready(server: Server, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"tdg serve ({server.backend}) exited with {server.process.returncode}:\n"
                               f"{server.log_tail()}")
        try:
            if httpx.get(server.url + "/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)  # polling the start-up, not waiting on the app under test
    raise RuntimeError(f"tdg serve ({server.backend}) was not ready in {timeout:.0f} s:\n{server.log_tail()}")
