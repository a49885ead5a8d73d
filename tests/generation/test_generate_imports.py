"""What `tdg generate` imports, in a fresh process: only what the run needs (issue 20). No server,
database or settings machinery; the XSD stack only for an XSD, jsonschema only for a JSON Schema
(its guard), Faker only to build a vocabulary no process has cached yet, and not typer's pydantic
option parsing (the fast path of app.generation.cli). The fast path reads a command line as typer
would: the same bytes for every spelling, and typer's own errors for the others."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from app.cli import app as tdg_app
from app.generation.cli import FAST_OPTIONS, fast_arguments
from tests.paths import BENCH, REPO

JSON_SCHEMA = BENCH / "customer_order.schema.json"
XSD = BENCH / "customer_order.xsd"
# the server, database and settings machinery, and typer's pydantic-based option parsing
NEVER = (
    "app.core",
    "app.main",
    "app.rest",
    "app.graphql",
    "sqlmodel",
    "sqlalchemy",
    "fastapi",
    "starlette",
    "uvicorn",
    "strawberry",
    "pydantic",
    "pydantic_settings",
    "alembic",
    "celery",
)
XSD_STACK = ("xmlschema", "elementpath")
JSON_GUARD = ("jsonschema", "jsonschema_rs", "re2")
# rfc3987_syntax compiles its grammars when imported: only an IRI check may load it
LARK = ("lark", "rfc3987_syntax.syntax_helpers")

# run `tdg` as its console script does, then list the modules the process imported
RUN = """
import atexit, json, sys
out = sys.argv.pop(1)
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
sys.argv[0] = "tdg"
from app.cli import app
app()
"""


def _imported(tmp_path: Path, *args: str) -> set[str]:
    listing = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(listing), *args],
        cwd=REPO,
        env={**os.environ, "TDG_CACHE_DIR": str(tmp_path / "cache")},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return set(json.loads(listing.read_text()))


def _loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_generate_from_a_json_schema_imports_the_engine_and_its_guard_only(tmp_path: Path) -> None:
    args = ("generate", str(JSON_SCHEMA), "-n", "1", "-f", "json", "-o", str(tmp_path / "out.json"), "--seed", "1")
    first = _imported(tmp_path, *args)  # builds the vocabularies (Faker) into the fresh cache
    assert "faker" in first
    modules = _imported(tmp_path, *args)
    assert {"app.generation.plan", *JSON_GUARD} <= modules
    assert _loaded(modules, NEVER) == []
    assert _loaded(modules, XSD_STACK) == []
    assert _loaded(modules, LARK) == []
    assert "faker" not in modules  # read from the cache
    assert json.loads((tmp_path / "out.json").read_bytes())[0]["id"] is not None


def test_generate_from_an_xsd_imports_no_jsonschema(tmp_path: Path) -> None:
    # one seed for both runs: the record's country picks the locale pools the first run caches
    args = ("generate", str(XSD), "-n", "1", "-f", "xml", "-o", str(tmp_path / "out.xml"), "--seed", "1")
    _imported(tmp_path, *args)
    modules = _imported(tmp_path, *args)
    assert {"app.generation.plan", *XSD_STACK} <= modules
    assert _loaded(modules, NEVER) == []
    assert _loaded(modules, ("jsonschema", "jsonschema_rs", "faker", *LARK)) == []
    assert (tmp_path / "out.xml").read_bytes().startswith(b"<?xml")


def test_help_imports_neither_the_engine_nor_the_server(tmp_path: Path) -> None:
    modules = _imported(tmp_path, "--help")
    assert _loaded(modules, NEVER) == []
    assert _loaded(modules, ("app.generation.plan", "app.generation.engine", "numpy", "faker")) == []


def test_the_fast_path_knows_every_option_of_the_typer_command() -> None:
    command = typer.main.get_command(tdg_app).commands["generate"]
    options = {
        opt: param.name
        for param in command.params
        if param.param_type_name == "option" and param.name != "help"
        for opt in (*param.opts, *param.secondary_opts)
    }
    assert options == FAST_OPTIONS


@pytest.mark.parametrize(
    "spelling",
    [
        ["-n", "40", "-f", "csv", "--seed", "7", "--locale", "de_DE"],
        ["--count=40", "--format=csv", "--seed=7", "--locale=de_DE"],
        ["-n40", "-fcsv", "--seed", "3", "--seed", "7", "--locale", "de_DE"],  # the last --seed wins
        ["--locale", "de_DE", "-f", "csv", "--seed", "7", "-n", "40"],
    ],
)
def test_the_fast_path_writes_what_typer_writes(tmp_path: Path, spelling: list[str]) -> None:
    typer_out, fast_out = tmp_path / "typer.csv", tmp_path / "fast.csv"
    canonical = ["generate", str(JSON_SCHEMA), "-n", "40", "-f", "csv", "--seed", "7", "--locale", "de_DE"]
    # CliRunner drives typer's click command: no fast path there
    result = CliRunner().invoke(tdg_app, [*canonical, "-o", str(typer_out)])
    assert result.exit_code == 0, result.output
    assert fast_arguments([*spelling, str(JSON_SCHEMA), "-o", str(fast_out)]) is not None
    done = subprocess.run(
        [
            str(Path(sys.executable).parent / "tdg"),
            "generate",
            *spelling,
            str(JSON_SCHEMA),
            "-o",
            str(fast_out),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stderr.strip() == "seed 7: 40 records in 1 file(s): " + str(fast_out)
    assert fast_out.read_bytes() == typer_out.read_bytes()


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["-n", "0", "-o", "-"], "Invalid value for '-n' / '--count'"),
        (["-n", "x1", "-o", "-"], "Invalid value for '-n' / '--count'"),
        (["-n", "1"], "Missing option '-o' / '--out'"),
        (["-n", "1", "-o", "-", "--colour", "red"], "No such option: --colour"),
        (["-n", "1", "-o", "-", "--constraints", "/nonexistent.json"], "does not exist"),
    ],
)
def test_other_command_lines_get_typers_errors(args: list[str], error: str) -> None:
    assert fast_arguments([str(JSON_SCHEMA), *args]) is None
    done = subprocess.run(
        [str(Path(sys.executable).parent / "tdg"), "generate", str(JSON_SCHEMA), *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 2
    assert error in done.stderr


# the fast path's start-up without cyclic collections (app.generation.cli._collector_deferred)
RUN_GC = """
import atexit, gc, json, sys
out = sys.argv.pop(1)
full = []
gc.callbacks.append(lambda phase, info: full.append(1) if phase == "stop" and info["generation"] == 2 else None)
atexit.register(lambda: open(out, "w").write(json.dumps([gc.isenabled(), gc.get_freeze_count(), len(full)])))
sys.argv[0] = "tdg"
from app.cli import app
app()
"""


def test_the_command_compiles_without_collections_and_writes_with_them(tmp_path: Path) -> None:
    report = tmp_path / "gc.json"
    # one seed for both runs: the record's country picks the locale pools the first run caches
    args = ("generate", str(XSD), "-n", "1", "-f", "xml", "-o", str(tmp_path / "out.xml"), "--seed", "1")
    done = subprocess.run(
        [sys.executable, "-c", RUN_GC, str(report), *args],
        cwd=REPO,
        env={**os.environ, "TDG_CACHE_DIR": str(tmp_path / "cache")},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    enabled, frozen, full_collections = json.loads(report.read_text())
    assert enabled  # back on for the writing phase
    assert frozen > 10_000  # the engine, the schema and the plan, out of the collector's view
    assert full_collections == 0
