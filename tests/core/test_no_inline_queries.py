"""SQL is built only in the repositories (app/core/repositories/, the shared ones, and each domain's
app/core/<domain>/repository.py) and the migrations: everywhere else a query would
bypass the tenancy-scoped access path. The scan reads the syntax tree, so `np.select(...)` or a
service function named `update` is not mistaken for SQL."""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"
ALLOWED = (APP / "core" / "repositories", APP / "core" / "migrations")
# a domain package's repository module: app/core/<domain>/repository.py
DOMAIN_REPOSITORIES = sorted((APP / "core").glob("*/repository.py"))
SQL_BUILDERS = {"select", "delete", "update", "insert", "text", "union", "union_all", "exists"}
SQL_MODULES = ("sqlalchemy", "sqlmodel")
# the readiness probe's constant query touches no table
ALLOWED_TEXT = {"SELECT 1"}


def _sql_calls(path: Path) -> list[str]:
    label = path.relative_to(APP.parent) if path.is_relative_to(APP.parent) else path.name
    return [f"{label}:{node.lineno}: {builder}(...)" for node, builder in _sql_nodes(path)]


def _sql_nodes(path: Path) -> list[tuple[ast.Call, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: dict[str, str] = {}  # local name -> builder imported from SQLAlchemy/SQLModel
    modules: set[str] = set()  # local names bound to SQLAlchemy/SQLModel modules
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in SQL_MODULES:
            for alias in node.names:
                if alias.name in SQL_BUILDERS:
                    names[alias.asname or alias.name] = alias.name
                elif alias.name in {"sql", "expression", "future"}:
                    modules.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in SQL_MODULES:
                    modules.add((alias.asname or alias.name).split(".")[0])
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        builder = None
        if isinstance(func, ast.Name) and func.id in names:
            builder = names[func.id]
        elif isinstance(func, ast.Attribute) and func.attr in SQL_BUILDERS:
            base = func.value
            on_module = isinstance(base, ast.Name) and base.id in modules
            on_table = isinstance(base, ast.Attribute) and base.attr == "__table__"  # Model.__table__.update()
            if on_module or on_table:
                builder = func.attr
        if builder is None:
            continue
        if builder == "text" and node.args and isinstance(node.args[0], ast.Constant) \
                and node.args[0].value in ALLOWED_TEXT:
            continue
        found.append((node, builder))
    return found


def _python_files() -> list[Path]:
    return sorted(p for p in APP.rglob("*.py") if "__pycache__" not in p.parts)


def test_no_sql_outside_repositories() -> None:
    offenders = [hit for path in _python_files()
                 if not any(path.is_relative_to(a) for a in ALLOWED) and path not in DOMAIN_REPOSITORIES
                 for hit in _sql_calls(path)]
    assert not offenders, "SQL built outside the repositories:\n" + "\n".join(offenders)


def test_the_scan_sees_repository_queries() -> None:
    """The detector is not blind: the repositories themselves are full of hits."""
    hits = [hit for path in _python_files() if path.is_relative_to(ALLOWED[0]) for hit in _sql_calls(path)]
    assert len(hits) >= 10, hits
    assert any("select(" in h for h in hits) and any("delete(" in h for h in hits)


def test_the_scan_catches_aliases(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    code = (
        "import numpy as np\nimport sqlalchemy as sa\nfrom sqlmodel import select as pick\n"
        "from sqlalchemy import text\n"
        "np.select([], [])\nservice.update(1)\n"
        "pick(User)\nsa.delete(User)\nUser.__table__.update()\ntext('DELETE FROM user_account')\n"
        "text('SELECT 1')\n"
    )
    sample.write_text(code)
    hits = _sql_calls(sample)
    assert [h.rsplit(": ", 1)[1] for h in hits] == ["select(...)", "delete(...)", "update(...)", "text(...)"]


# -- inside the repositories: statements start from the scoped base -----------------------------

REPOSITORIES = ALLOWED[0]
# the tenancy rule itself: the base's scoped builders and the one project-visibility clause
RULE_MODULES = {"base.py", "visibility.py"}
# not principal-scoped, on purpose: before a principal exists (login, token resolution), keyed by
# the signed-in user, or the system side acting for rows authorised when they were created
SYSTEM = {"AuthRepository", "TwoFactorRepository", "JobRepository", "RetentionRepository", "DeliveryQueue"}
SYSTEM_MODULES = {"jobs.py"}  # its module-level fenced writes run on a worker's connection
# builders that start a statement from a table (exists/union only wrap statements already built)
STARTERS = {"select", "delete", "update", "insert", "text"}


def _scoped_classes(paths: list[Path]) -> set[str]:
    """Classes derived, directly or not, from ScopedRepository."""
    bases: dict[str, set[str]] = {}
    for path in paths:
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                bases[node.name] = {b.id for b in node.bases if isinstance(b, ast.Name)}
    scoped = {"ScopedRepository"}
    while True:
        more = {name for name, parents in bases.items() if parents & scoped} - scoped
        if not more:
            return scoped
        scoped |= more


def _unscoped_statements(path: Path, scoped: set[str]) -> list[str]:
    """Bare SQL builders where a scoped statement is due: in a ScopedRepository subclass, or in
    a class or module that is neither scoped nor declared system-side."""
    if path.name in RULE_MODULES:
        return []
    classes = [n for n in ast.parse(path.read_text()).body if isinstance(n, ast.ClassDef)]

    def owner(line: int) -> str | None:
        return next((c.name for c in classes if c.lineno <= line <= (c.end_lineno or c.lineno)), None)

    found = []
    for node, builder in sorted(_sql_nodes(path), key=lambda hit: hit[0].lineno):
        cls = owner(node.lineno)
        if cls in SYSTEM or (cls is None and path.name in SYSTEM_MODULES):
            continue
        if cls not in scoped or builder in STARTERS:
            found.append(f"{path.name}:{node.lineno}: {builder}(...) in {cls or 'module code'}")
    return found


def _repository_files() -> list[Path]:
    return sorted(p for p in REPOSITORIES.glob("*.py") if p.name != "__init__.py") + DOMAIN_REPOSITORIES


def test_repositories_build_statements_from_the_scoped_base() -> None:
    files = _repository_files()
    scoped = _scoped_classes(files)
    offenders = [hit for path in files for hit in _unscoped_statements(path, scoped)]
    assert not offenders, ("use self.select/self.update/self.delete_where/self.unscoped of ScopedRepository "
                           "(or declare a system-side class in SYSTEM):\n" + "\n".join(offenders))


def test_the_repository_scan_catches_a_bare_statement(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from sqlalchemy import exists, func\nfrom sqlmodel import select\n"
        "class Base(ScopedRepository):\n    pass\n"
        "class Good(Base):\n    def a(self):\n        return exists(self.select(User).where(func.true()))\n"
        "class Leaky(Base):\n    def a(self):\n        return select(User)\n"
        "class Stray:\n    def a(self):\n        return exists(User)\n"
        "def helper():\n    return select(User.id)\n"
    )
    scoped = _scoped_classes([sample])
    assert scoped == {"ScopedRepository", "Base", "Good", "Leaky"}
    assert [h.split(": ", 1)[1] for h in _unscoped_statements(sample, scoped)] == [
        "select(...) in Leaky", "exists(...) in Stray", "select(...) in module code"]
