"""Small modules and short functions: no module in app/ over 600 lines and no function over 80,
so each file can be read whole. Alembic migrations are exempt: each is one generated upgrade
and downgrade of DDL, and splitting them would only hide what a revision creates."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import REPO

APP = REPO / "app"
MODULE_LINES = 600
FUNCTION_LINES = 80


def _sources() -> list[Path]:
    return [p for p in sorted(APP.rglob("*.py")) if "migrations/versions" not in p.as_posix()]


def test_no_module_over_600_lines() -> None:
    long = [f"{p.relative_to(REPO)}: {n}" for p in _sources()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MODULE_LINES]
    assert not long, "modules over 600 lines:\n" + "\n".join(long)


def test_no_function_over_80_lines() -> None:
    long = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > FUNCTION_LINES:
                    long.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name}: {size}")
    assert not long, "functions over 80 lines:\n" + "\n".join(long)
