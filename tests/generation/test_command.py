"""`tdg generate` through typer's CliRunner on a private typer app."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import typer
from typer.testing import CliRunner

from app.generation.cli import register
from tests.paths import BENCH as BENCH_DIR

BENCH = BENCH_DIR / "customer_order.schema.json"
SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["id", "email", "age"],
    "properties": {"id": {"type": "integer"}, "email": {"type": "string", "format": "email"},
                   "age": {"type": "integer", "minimum": 0, "maximum": 120}},
}


def _app() -> typer.Typer:
    app = typer.Typer()
    register(app)

    @app.command()
    def noop() -> None:  # a second command keeps `generate` a named sub-command
        pass

    return app


def test_generate_to_stdout_is_reproducible(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(SCHEMA))
    runner = CliRunner()
    args = ["generate", str(schema), "-n", "25", "-f", "ndjson", "-o", "-", "--seed", "3"]
    first = runner.invoke(_app(), args)
    assert first.exit_code == 0, first.output
    lines = [line for line in first.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 25 and all("@" in orjson.loads(x)["email"] for x in lines)
    again = runner.invoke(_app(), args)
    assert [x for x in again.stdout.splitlines() if x.startswith("{")] == lines


def test_generate_files_with_constraints_and_split(tmp_path: Path) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(SCHEMA))
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps([{"path": "age", "min": 30, "max": 31}]))
    out = tmp_path / "out.json"
    result = CliRunner().invoke(_app(), ["generate", str(schema), "-n", "10", "-f", "json", "-o", str(out),
                                         "--constraints", str(rules), "--records-per-file", "4"])
    assert result.exit_code == 0, result.output
    files = [tmp_path / f"out-{i}.json" for i in range(3)]
    records = [r for f in files for r in orjson.loads(f.read_bytes())]
    assert len(records) == 10 and {r["age"] for r in records} <= {30, 31}
    assert [r["id"] for r in records] == list(range(1, 11))


def test_generate_reports_unsatisfiable_schemas(tmp_path: Path) -> None:
    schema = tmp_path / "bad.json"
    schema.write_text(json.dumps({"type": "object", "required": ["n"], "properties": {
        "n": {"type": "integer", "minimum": 5, "maximum": 4}}}))
    result = CliRunner().invoke(_app(), ["generate", str(schema), "-n", "3", "-o", "-"])
    assert result.exit_code == 2
    assert "error: n:" in result.output
