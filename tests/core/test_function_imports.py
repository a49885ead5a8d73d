"""Imports inside functions in app/core are the listed ones, each with its reason. A function-level
import that guards nothing only hides a module's dependencies (and, across folders, a cycle: see
test_import_cycles.py); the ones kept below keep a heavy library or the generation engine out of
the processes that never use it (tests/core/test_server_imports.py checks what `tdg serve` loads
at start-up). A new one fails here until it is listed with its reason; a listed one that is gone
fails too, so the list only shrinks. Imports under `if TYPE_CHECKING:` never run and are not
counted. The scanner tests itself on a tiny fake package first."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import REPO

CORE = REPO / "app" / "core"

ENGINE = (
    "the generation engine (with faker) loads in the worker processes, not in the API process, "
    "which imports this module but generates nothing (test_server_imports)"
)
BOTO = "boto3/botocore load only when an S3 integration or store is used (test_server_imports)"
ALEMBIC = "Alembic loads only when migrations run, in a child process (test_server_imports)"

# (file under app/core, function, imported module) -> why the import is inside the function
ALLOWED: dict[tuple[str, str, str], str] = {
    ("generation.py", "schema_repr", "app.generation.schema.repr"): ENGINE,
    ("generation.py", "parse_rules", "app.generation.rules"): ENGINE,
    ("generation.py", "parse_params", "app.generation.params"): ENGINE,
    ("generation.py", "compile_plan", "app.generation.plan"): ENGINE,
    ("generation.py", "root_problems", "app.generation.problems"): ENGINE,
    ("generation.py", "cached_plan", "app.generation.params"): ENGINE,
    ("generation.py", "cached_plan", "app.generation.plan"): ENGINE,
    ("generation.py", "cached_plan", "app.generation.rules"): ENGINE,
    ("generation.py", "cached_plan", "app.generation.coverage"): ENGINE,
    ("generation.py", "cached_plan", "app.generation.coverage.suite"): ENGINE,
    ("generation.py", "_with_negative", "app.generation.negative.engine"): ENGINE,
    ("generation.py", "coverage_set", "app.generation.coverage"): ENGINE,
    ("generation.py", "coverage_set", "app.generation.params"): ENGINE,
    ("generation.py", "coverage_set", "app.generation.rules"): ENGINE,
    ("jobs/plans.py", "warm_up", "app.generation.values.vocab"): ENGINE,
    ("jobs/sharding.py", "shard_ranges", "app.generation.plan"): ENGINE,
    ("jobs/sharding.py", "split_point", "app.generation.plan"): ENGINE,
    ("jobs/sharding.py", "block_edge", "app.generation.plan"): ENGINE,
    ("library/constraint_sets.py", "categories", "app.generation.values.categories"): (
        "the category generators load Faker's locale data at import; the API process answers the "
        "category list only when asked"
    ),
    ("integrations/object_export.py", "_upload", "boto3.s3.transfer"): BOTO,
    ("integrations/object_export.py", "_upload", "app.core.integrations.s3_client"): BOTO,
    ("integrations/object_export.py", "_copied_in_store", "botocore.exceptions"): BOTO,
    ("integrations/object_export.py", "_send", "boto3.exceptions"): BOTO,
    ("integrations/object_export.py", "_send", "botocore.exceptions"): BOTO,
    ("integrations/object_export.py", "_send", "app.core.integrations.s3_client"): BOTO,
    ("integrations/service.py", "check_connection", "app.core.integrations.s3_client"): BOTO,
    ("storage/__init__.py", "_open", "app.core.storage.s3"): BOTO,
    ("jobs/executors.py", "CeleryExecutor.__init__", "app.core.jobs.celery_app"): (
        "Celery loads only when a broker is configured"
    ),
    ("migrate.py", "alembic_config", "alembic.config"): ALEMBIC,
    ("migrate.py", "upgrade", "alembic"): ALEMBIC,
    ("migrate.py", "autogenerate", "alembic"): ALEMBIC,
    ("users/profile.py", "_reencode_avatar", "PIL"): "Pillow loads only when an avatar is uploaded (test_server_imports)",
}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return ["." * node.level + (node.module or "")]


def function_imports(package_dir: Path) -> set[tuple[str, str, str]]:
    """(file relative to the package, dotted function name, imported module) of every import
    statement inside a function or method, at any depth, except under `if TYPE_CHECKING:`."""
    found: set[tuple[str, str, str]] = set()
    for path in sorted(package_dir.rglob("*.py")):
        rel = path.relative_to(package_dir).as_posix()
        # (node, enclosing function's dotted name or None, enclosing class names)
        pending: list[tuple[ast.AST, str | None, str]] = [(ast.parse(path.read_text(), str(path)), None, "")]
        while pending:
            node, function, owner = pending.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.If) and _is_type_checking(child):
                    pending.extend((other, function, owner) for other in child.orelse)
                elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                    name = child.name if function is None else f"{function}.{child.name}"
                    pending.append((child, f"{owner}{name}" if function is None else name, ""))
                elif isinstance(child, ast.ClassDef):
                    pending.append((child, function, f"{owner}{child.name}." if function is None else owner))
                else:
                    if function is not None and isinstance(child, ast.Import | ast.ImportFrom):
                        found.update((rel, function, module) for module in _imported(child))
                    pending.append((child, function, owner))
    return found


def test_the_scanner_finds_imports_in_functions_and_methods_only(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text(
        "import os\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import json\n"
        "def f():\n    import re\n    if True:\n        from . import b\n"
        "    def inner():\n        import csv\n"
        "    if TYPE_CHECKING:\n        import zlib\n"
    )
    (pkg / "sub" / "c.py").write_text(
        "class K:\n    def m(self):\n        from pkg.a import f\n"
        "try:\n    import lzma\nexcept ImportError:\n    lzma = None\n"
    )
    assert function_imports(pkg) == {
        ("a.py", "f", "re"), ("a.py", "f", "."), ("a.py", "f.inner", "csv"),
        ("sub/c.py", "K.m", "pkg.a"),
    }


def test_every_function_level_import_in_app_core_is_listed_with_its_reason() -> None:
    found = function_imports(CORE)
    unlisted = sorted(found - ALLOWED.keys())
    assert not unlisted, (
        "function-level imports in app/core that are not in ALLOWED: move them to the top of their "
        "module, or list them with the reason they must stay:\n"
        + "\n".join(f"  {rel}: {fn}() imports {module}" for rel, fn, module in unlisted)
    )
    gone = sorted(ALLOWED.keys() - found)
    assert not gone, "listed in ALLOWED but no longer imported in a function (remove the entry):\n" + "\n".join(
        f"  {rel}: {fn}() imports {module}" for rel, fn, module in gone)
    assert all(reason.strip() for reason in ALLOWED.values())
