"""`tdg serve` really serves: a subprocess on a free loopback port, a fresh SQLite database,
the bootstrap SuperUser from TDG_ADMIN_PASSWORD, a login and an authenticated call over TCP, the
web interface at `/`, and invitation links on the address it listens on."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx

from app.cli import listen_url, serve_settings
from app.core.settings import Settings
from tests.support.ports import free_port
from tests.support.waiting import eventually_sync

TDG = Path(sys.executable).parent / "tdg"
PASSWORD = "serve-test-password-1"


def _free_port() -> int:
    """A loopback port no other test process is handed (tests/support/ports.py)."""
    return free_port()


def _wait_healthy(base: str, proc: subprocess.Popen[bytes], timeout: float = 300.0) -> None:
    def healthy() -> bool:
        assert proc.poll() is None, f"tdg serve exited with {proc.returncode}"
        try:
            return httpx.get(base + "/healthz", timeout=1.0).status_code == 200
        except httpx.TransportError:
            return False

    eventually_sync(healthy, timeout=timeout, interval=0.2, what="tdg serve answering /healthz")


def test_tdg_serve_end_to_end(tmp_path: Path) -> None:
    assert TDG.exists(), f"{TDG} is missing: install the project (pip install -e .)"
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TDG_")}
    env.update(TDG_DATABASE_URL=f"sqlite:///{tmp_path / 'tdg.db'}", TDG_DATA_DIR=str(tmp_path / "data"),
               TDG_ADMIN_PASSWORD=PASSWORD, TDG_WORKERS="1")
    log = (tmp_path / "serve.log").open("wb")
    proc = subprocess.Popen([str(TDG), "serve", "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"],
                            env=env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(base, proc)
        with httpx.Client(base_url=base + "/api/v1", timeout=10.0) as client:
            r = client.post("/users/token", data={"username": "admin", "password": PASSWORD})
            assert r.status_code == 200, r.text
            token = r.json()["access_token"]
            me = client.get("/users/me", headers={"Authorization": f"Bearer {token}"})
            assert me.status_code == 200, me.text
            assert me.json()["username"] == "admin" and me.json()["role"] == "SuperUser"
            assert client.get("/users/me").status_code == 401
            assert client.get("/openapi.json").json()["paths"]
            # TDG_PUBLIC_URL unset: invitation links point at the address the server listens on
            invited = client.post("/users/invite", headers={"Authorization": f"Bearer {token}"},
                                  json={"username": "invitee", "email": "invitee@example.com", "role": "Tester"})
            assert invited.status_code == 201, invited.text
            body = invited.json()
            assert body["invitation_url"] == f"{base}/setup-password?token={body['invitation_token']}"
        home = httpx.get(base + "/setup-password?token=x", timeout=5.0)
        assert home.status_code == 200 and home.headers["content-type"].startswith("text/html")
        assert home.headers["x-frame-options"] == "DENY"
        assert httpx.get(base + "/readyz", timeout=5.0).status_code == 200
        assert (tmp_path / "tdg.db").exists() and (tmp_path / "data").is_dir()
    finally:
        proc.send_signal(signal.SIGINT)
        try:  # a deadline: on a loaded machine the niced pool processes take long to exit
            proc.wait(timeout=300)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()
    assert proc.returncode == 0, (tmp_path / "serve.log").read_text()[-3000:]


def test_public_url_defaults_to_the_listening_address() -> None:
    assert listen_url("127.0.0.1", 8123) == "http://127.0.0.1:8123"
    assert listen_url("::1", 8123) == "http://[::1]:8123"
    assert listen_url("0.0.0.0", 9000) == f"http://{socket.gethostname() or '127.0.0.1'}:9000"
    unset = Settings(env="test")
    assert serve_settings(unset, "10.1.2.3", 9000).site_url == "http://10.1.2.3:9000"
    explicit = Settings(env="test", public_url="https://tdg.example.com/")
    assert serve_settings(explicit, "0.0.0.0", 9000).site_url == "https://tdg.example.com"
