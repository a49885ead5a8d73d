"""The first `tdg serve` on an empty database, with no TDG_ADMIN_PASSWORD, ends its start-up with a
banner (issue 28): after uvicorn says it is running, the address, the user, the generated
password (which logs in) and how to choose one's own. A later start prints no banner."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx

from tests.conftest import CHEAP_PASSWORD_HASHING
from tests.support.ports import free_port
from tests.support.waiting import eventually_sync

TDG = Path(sys.executable).parent / "tdg"
BANNER = re.compile(r"Sign in as (\S+) with the generated password: (\S+)")


def _serve(database_url: str, tmp_path: Path, port: int, log: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TDG_")}
    env.update(TDG_DATABASE_URL=database_url, TDG_DATA_DIR=str(tmp_path / "data"), TDG_WORKERS="1",
               TDG_WARM_POOL="false", **{f"TDG_{k.upper()}": str(v) for k, v in CHEAP_PASSWORD_HASHING.items()})
    with log.open("ab") as out:
        return subprocess.Popen([str(TDG), "serve", "--port", str(port), *args], env=env, cwd=tmp_path,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def test_the_first_start_ends_with_the_admin_banner(database_url: str, tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "serve.log"
    proc = _serve(database_url, tmp_path, port, log)
    try:
        def banner_shown() -> bool:
            assert proc.poll() is None, log.read_text()
            return "tdg user reset-password" in log.read_text()

        eventually_sync(banner_shown, timeout=300, interval=0.2, what="the first-start banner")
        text = log.read_text()
        found = BANNER.search(text)
        assert found is not None, text
        username, password = found.groups()
        assert username == "admin"
        assert f"tdg is ready at http://127.0.0.1:{port}" in text
        assert "TDG_ADMIN_PASSWORD" in text
        # after uvicorn's "running" line: the end of start-up, not lost in its middle
        assert text.index("Uvicorn running on") < text.index("tdg is ready at")
        r = httpx.post(f"http://127.0.0.1:{port}/api/v1/users/token",
                       data={"username": username, "password": password}, timeout=30)
        assert r.status_code == 200, r.text
    finally:
        _stop(proc)

    # the second start finds the SuperUser: no password is generated, no banner
    again_log = tmp_path / "again.log"
    again = _serve(database_url, tmp_path, port, again_log)
    try:
        def answering() -> bool:
            assert again.poll() is None, again_log.read_text()
            try:
                return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        eventually_sync(answering, timeout=300, interval=0.2, what="the second start answering")
    finally:
        _stop(again)
    assert "generated password" not in again_log.read_text()
