"""`tdg user reset-password USERNAME` (issue 28), a real subprocess on the test's database (SQLite
and PostgreSQL): the password from a pipe, from a terminal's hidden prompt typed twice, or drawn
with --generate; the old password and the user's earlier sessions stop working, a login lockout
is lifted, the change is in the audit log as the shell's; and `tdg --help` shows `--help` as a
flag, without a type."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.core.settings import Settings
from tests.api_client import USER_PASSWORD, Api
from tests.conftest import CHEAP_PASSWORD_HASHING

TDG = Path(sys.executable).parent / "tdg"
NEW_PASSWORD = "reset-by-shell-1"


def _env(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TDG_")}
    env.update(TDG_DATABASE_URL=settings.database_url, TDG_DATA_DIR=str(settings.data_dir),
               TDG_SECRET_KEY=settings.secret_key or "", TDG_ADMIN_USERNAME=settings.admin_username,
               **{f"TDG_{k.upper()}": str(v) for k, v in CHEAP_PASSWORD_HASHING.items()})
    return env


def _reset(settings: Settings, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(TDG), "user", "reset-password", *args], input=stdin, capture_output=True,
                          text=True, env=_env(settings), timeout=120, check=False)


async def _login_status(api: Api, username: str, password: str) -> int:
    r = await api.client.post("/api/v1/users/token", data={"username": username, "password": password})
    return r.status_code


async def test_reset_from_a_pipe_signs_out_and_is_audited(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    assert (await api.call("GET", "/users/me", tester, 200))["username"] == tester.username

    done = _reset(settings, tester.username, stdin=NEW_PASSWORD + "\n")
    assert done.returncode == 0, done.stderr
    assert "reset" in done.stderr and NEW_PASSWORD not in done.stdout + done.stderr

    assert await _login_status(api, tester.username, USER_PASSWORD) == 401
    assert await _login_status(api, tester.username, NEW_PASSWORD) == 200
    r = await api.request("GET", "/users/me", tester)  # a session from before the reset
    assert r.status_code == 401, r.text

    rows = await api.call("GET", "/audit/logs", admin, 200, params={"limit": 50})
    mine = [row for row in rows if row["action"] == "user.reset_password"]
    assert len(mine) == 1
    assert mine[0]["actor_username"] == "shell" and mine[0]["target_id"] == str(tester.id)
    assert NEW_PASSWORD not in str(mine[0])


async def test_generate_prints_a_password_that_works_and_lifts_a_lockout(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    for _ in range(settings.login_max_failures):
        assert await _login_status(api, tester.username, "wrong-password-0") == 401
    assert await _login_status(api, tester.username, USER_PASSWORD) == 429  # locked out

    done = _reset(settings, tester.username, "--generate")
    assert done.returncode == 0, done.stderr
    generated = done.stdout.strip()
    assert len(generated) >= 12 and "\n" not in generated
    assert await _login_status(api, tester.username, generated) == 200


async def test_refusals(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    short = _reset(settings, tester.username, stdin="short\n")
    assert short.returncode == 2 and "at least 8 characters" in short.stderr
    nobody = _reset(settings, "nobody-by-that-name", stdin=NEW_PASSWORD + "\n")
    assert nobody.returncode == 2 and "No user named 'nobody-by-that-name'" in nobody.stderr
    empty = _reset(settings, tester.username, stdin="")
    assert empty.returncode == 2 and "no password on standard input" in empty.stderr
    assert await _login_status(api, tester.username, USER_PASSWORD) == 200  # unchanged


def _read_until(fd: int, needle: bytes, seen: bytearray, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while needle not in seen:
        assert time.monotonic() < deadline, f"{needle!r} never came; got {bytes(seen)!r}"
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 1024)
            except OSError:  # the child closed the terminal
                break
            seen.extend(chunk)


async def test_at_a_terminal_the_password_is_asked_twice_hidden(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    master, slave = pty.openpty()
    proc = subprocess.Popen([str(TDG), "user", "reset-password", tester.username], stdin=slave, stdout=slave,
                            stderr=slave, env=_env(settings), close_fds=True)
    os.close(slave)
    seen = bytearray()
    try:
        # click writes the prompt, then getpass turns echo off (dropping what was typed before)
        # and writes a space: type only after that space
        _read_until(master, b"New password: ", seen)
        os.write(master, NEW_PASSWORD.encode() + b"\n")
        _read_until(master, b"Repeat for confirmation: ", seen)
        os.write(master, NEW_PASSWORD.encode() + b"\n")
        _read_until(master, b"signed out", seen, timeout=120)
        assert proc.wait(timeout=30) == 0, bytes(seen)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert NEW_PASSWORD.encode() not in seen  # hidden: the terminal did not echo it
    assert await _login_status(api, tester.username, NEW_PASSWORD) == 200


@pytest.mark.parametrize("command", [[], ["user"], ["user", "reset-password"], ["serve"], ["generate"]])
def test_help_shows_the_help_flag_without_a_type(command: list[str]) -> None:
    done = subprocess.run([str(TDG), *command, "--help"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "COLUMNS": "150"}, check=True)
    (line,) = [line for line in done.stdout.splitlines() if "--help" in line]
    assert "Show this message and exit." in line
    assert "<" not in line, line
