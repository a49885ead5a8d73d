"""The README's "Walk-through with curl" runs as written: its ```bash blocks, joined into one
script, run by bash (curl, jq) against a live `tdg serve` on a fresh SQLite database, from a
directory laid out like the repository root (`tests/fixtures/...`, `.venv/bin/tdg`)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.datasets.processes import free_port, service_env, start_serve
from tests.paths import REPO

README = REPO / "README.md"
DOC_BASE = "http://127.0.0.1:8000"
PASSWORD = "walk-through-password-1"
# every curl of the walk-through fails the script on an HTTP error (the body is still printed)
STRICT_CURL = 'set -euo pipefail\ncurl() { command curl --fail-with-body "$@"; }\n'


def walkthrough_blocks(text: str) -> list[str]:
    section = text.split("## Walk-through with curl", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```bash\n(.*?)^```", section, flags=re.S | re.M)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    port = free_port()
    env = service_env(f"sqlite:///{tmp_path / 'tdg.db'}", tmp_path / "data", TDG_ADMIN_USERNAME="admin",
                      TDG_ADMIN_PASSWORD=PASSWORD, TDG_WORKERS="1", TDG_WARM_POOL="false",
                      TDG_DISPATCH_INTERVAL_SECONDS="0.2")
    proc = start_serve(env, tmp_path / "serve.log", port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.stop()


def test_readme_names_what_it_needs() -> None:
    blocks = walkthrough_blocks(README.read_text())
    assert len(blocks) == 3
    script = "\n".join(blocks)
    assert DOC_BASE in script and "@tests/fixtures/bench/customer_order.schema.json" in script
    assert ".venv/bin/tdg generate tests/fixtures/bench/customer_order.schema.json" in script
    assert "ops@acme.test" in script


def test_readme_walkthrough_runs_as_written(server: str, tmp_path: Path) -> None:
    script = STRICT_CURL + "\n".join(walkthrough_blocks(README.read_text())).replace(DOC_BASE, server)
    work = tmp_path / "work"
    work.mkdir()
    (work / "tests").symlink_to(REPO / "tests")
    (work / ".venv").symlink_to(Path(sys.executable).parent.parent)  # the venv running these tests
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TDG_ADMIN_PASSWORD": PASSWORD}
    done = subprocess.run(["bash", "-c", script], cwd=work, env=env, capture_output=True, text=True,
                          timeout=600)  # a deadline: a cold pool and tdg generate on a loaded machine
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert done.stdout.rstrip().endswith("identical")  # tdg generate == the service's csv

    assert len((work / "orders.csv").read_text().splitlines()) == 10_001
    assert (work / "orders.sql").read_text().count("INSERT") >= 1
    # the steps' ids were the rows the walk-through meant: tess (user 3) is an `edit` member of project 1
    with httpx.Client(base_url=server + "/api/v1", timeout=10) as client:
        token = client.post("/users/token", data={"username": "tess", "password": "tester-pass-1"}).json()
        project = client.get("/projects/1", headers={"Authorization": f"Bearer {token['access_token']}"}).json()
    assert project["name"] == "Checkout" and project["my_role"] == "edit"
    assert [(m["user_id"], m["user"]["username"]) for m in project["members"]] == [(3, "tess")]
