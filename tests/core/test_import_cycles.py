"""No import cycle in app/, imports inside functions included: a local import that hides a cycle
from the interpreter still ties the two modules together. Imports under `if TYPE_CHECKING:` do not
run, so they are left out. The scanner tests itself on a tiny fake package first."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import REPO

APP = REPO / "app"


def module_names(package_dir: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file under the package directory."""
    modules: dict[str, Path] = {}
    for path in package_dir.rglob("*.py"):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement at any depth, except the bodies of `if TYPE_CHECKING:`."""
    found: list[ast.Import | ast.ImportFrom] = []
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If) and _is_type_checking(node):
            pending.extend(node.orelse)
            continue
        pending.extend(ast.iter_child_nodes(node))
    return found


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(package_dir: Path) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports (the most specific module named)."""
    modules = module_names(package_dir)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in _imports(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _resolve(name, path.name == "__init__.py", node)
                # `from pkg import mod` names a submodule when one exists, else a name in pkg
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "pkg"


def test_the_scanner_finds_a_cycle_hidden_inside_a_function(tmp_path: Path) -> None:
    pkg = _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from pkg import b\n",
        "pkg/b.py": "def late():\n    from pkg.a import thing\n    return thing\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/c.py": "from ..a import x\nfrom . import d\n",
        "pkg/sub/d.py": "import os\nimport pkg.sub\n",
    })
    graph = import_graph(pkg)
    assert graph["pkg.b"] == {"pkg.a"} and graph["pkg.sub.c"] == {"pkg.a", "pkg.sub.d"}
    assert graph["pkg.sub.d"] == {"pkg.sub"}
    assert cycles(graph) == [["pkg.a", "pkg.b"]]


def test_the_scanner_ignores_type_checking_imports_and_follows_longer_cycles(tmp_path: Path) -> None:
    pkg = _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import B\n",
        "pkg/b.py": "from pkg.a import A\n",
        "pkg/x.py": "import pkg.y\n",
        "pkg/y.py": "class Y:\n    def run(self):\n        from pkg import z\n",
        "pkg/z.py": "from pkg.x import X\n",
    })
    assert cycles(import_graph(pkg)) == [["pkg.x", "pkg.y", "pkg.z"]]


def test_app_has_no_import_cycle() -> None:
    found = cycles(import_graph(APP))
    assert not found, "import cycles in app/ (imports inside functions included):\n" + "\n".join(
        " <-> ".join(component) for component in found)


# -- folders of app/core -------------------------------------------------------------------------

CORE = "app.core"
# a domain package's tables and payloads are the bottom of the house: the shared repositories,
# the jobs and the other domains read them, so each is a node of its own, below its folder
TABLE_MODULES = ("models", "payloads")


def folder_of(module: str) -> str | None:
    """The folder (or top-level module) of app/core a module belongs to; None outside app/core."""
    parts = module.split(".")
    if parts[:2] != CORE.split(".") or len(parts) < 3:
        return None
    if len(parts) >= 4 and parts[3] in TABLE_MODULES:
        return ".".join(parts[:4])
    return ".".join(parts[:3])


def folder_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    folders: dict[str, set[str]] = {}
    for module, targets in graph.items():
        source = folder_of(module)
        if source is None:
            continue
        folders.setdefault(source, set())
        for target in targets:
            folder = folder_of(target)
            if folder is not None and folder != source:
                folders[source].add(folder)
    return folders


def test_the_folder_scan_sees_a_folder_cycle_and_keeps_tables_apart() -> None:
    graph = {
        "app.core.jobs.run": {"app.core.storage.files"},
        "app.core.storage.files": {"app.core.jobs.paths"},
        "app.core.jobs.paths": set(),
        "app.core.datasets.service": {"app.core.repositories.base"},
        "app.core.repositories.base": {"app.core.datasets.models"},
        "app.core.datasets.models": set(),
    }
    assert cycles(folder_graph(graph)) == [["app.core.jobs", "app.core.storage"]]


def test_app_core_has_no_folder_cycle() -> None:
    """The domains too form a DAG (their order is an import-linter layers contract): a use case
    that needs a higher domain lives in it, not behind an import inside a function."""
    found = cycles(folder_graph(import_graph(APP)))
    assert not found, "folder cycles in app/core (imports inside functions included):\n" + "\n".join(
        " <-> ".join(component) for component in found)
