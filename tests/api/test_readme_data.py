"""The README's "What the data looks like" runs as written (issue 17): its sample record is a record
of the bench schema, and its constraint-set block, run by bash (curl, jq) against a live `tdg serve`
on a fresh SQLite database, prints what the README says it prints: each leaf's inferred category,
three records that keep every rule, and the 422 sentence. The records themselves are compared by
what the rules promise, not byte for byte: value generators change, the promises do not."""

from __future__ import annotations

import datetime as dt
import json
import re
import subprocess
import sys
from pathlib import Path

from jsonschema import Draft202012Validator

from app.generation.values.wordlists import HOBBIES
from tests.api.test_readme_walkthrough import DOC_BASE, PASSWORD, README, server
from tests.paths import REPO

__all__ = ["server"]  # the live server fixture, shared with the walk-through's test
BENCH = REPO / "tests" / "fixtures" / "bench" / "customer_order.schema.json"


def _section() -> str:
    return README.read_text().split("## What the data looks like", 1)[1].split("\n## ", 1)[0]


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```", _section(), flags=re.S | re.M)


def test_the_sample_record_is_a_bench_record() -> None:
    command, _ = _blocks("bash")
    assert ".venv/bin/tdg generate tests/fixtures/bench/customer_order.schema.json" in command
    (sample,) = _blocks("json")
    record = json.loads(sample)
    schema = json.loads(BENCH.read_text())
    Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER).validate(record)
    assert set(record) == set(schema["properties"])


def test_the_constraint_set_block_runs_as_written(server: str, tmp_path: Path) -> None:
    _, script = _blocks("bash")
    (printed,) = _blocks("text")
    work = tmp_path / "work"
    work.mkdir()
    (work / "tests").symlink_to(REPO / "tests")
    (work / ".venv").symlink_to(Path(sys.executable).parent.parent)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TDG_ADMIN_PASSWORD": PASSWORD}
    # plain curl -s, as pasted (the last call is the 422 the block shows); a failed step shows below
    done = subprocess.run(
        ["bash", "-c", "set -euo pipefail\n" + script.replace(DOC_BASE, server)],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    lines = [line for line in done.stdout.splitlines() if line]
    expected = [line for line in printed.splitlines() if line]
    categories = [line for line in expected if not line.startswith("{")][:-1]
    assert lines[: len(categories)] == categories  # the inferred categories, as the README lists them
    assert "skills.name: skill" in categories and "salary: price" in categories
    records = [json.loads(line) for line in lines[len(categories) : -1]]
    assert len(records) == 3
    for record in records:
        assert 30000 <= record["salary"] <= 250000
        hired = dt.date.fromisoformat(record["hire_date"])
        assert dt.date(2005, 1, 1) <= hired <= dt.date(2025, 10, 31)
        assert dt.date.fromisoformat(record["review_date"]) > hired
        assert record["department"] in ("Sales", "R&D", "Finance", "Support")
        assert {skill["name"] for skill in record["skills"]} <= set(HOBBIES)  # the rule's category
    assert {r["address"]["country"] for r in records} <= {"Germany", "United States"}
    assert lines[-1] == expected[-1] == "Rule for 'salary': 'edge_rate' must be a number from 0 to 1."
