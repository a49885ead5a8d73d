"""What the engine cannot generate for one record root, found by running the engine's own checks on a
few records before any dataset exists: the compiler (unsatisfiable fields, dropped optional
fields), a probe block and the validity guard. `/repr` lists them; a dataset request whose root
has a blocking problem is refused at once. Design notes: docs/generation.md."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from typing import Any

from app.generation.engine.budget import MAX_DRAW_WORK, draw_work
from app.generation.engine.compiler import Compiler
from app.generation.engine.generators import Gen
from app.generation.engine.objects import ObjectGen
from app.generation.errors import GenerationError
from app.generation.model import FieldTree, Kind, Node
from app.generation.params import parse_params
from app.generation.plan import Plan
from app.generation.schema.loader import LoadedSchema
from app.generation.writers.xml import XmlWriter

PROBE_RECORDS = 16
# a larger record (a 1.6 MB pipeline schema has 100,000 fields) is not compiled at upload: its
# first compilation takes a minute; the dataset's job still reports what fails
MAX_CHECKED_NODES = 20_000
# naming every impossible field (after the record failed) stops after this long
PER_FIELD_BUDGET_S = 3.0


class _TooSlow(Exception):
    """The compiled record costs more than MAX_DRAW_WORK draws even at the shallowest recursion (the
    probe would take minutes, and so would every dataset); carries the problem to list."""

    def __init__(self, problem: dict[str, Any]) -> None:
        super().__init__(problem["reason"])
        self.problem = problem


def _problem(detail: str, blocking: bool) -> dict[str, Any]:
    """`"path: reason"` (the engine's own form) split; a sentence that names no path is the root's."""
    head, sep, rest = detail.partition(": ")
    if sep and head and " " not in head:
        return {"path": head, "reason": rest.rstrip("."), "blocking": blocking}
    return {"path": "", "reason": detail.rstrip("."), "blocking": blocking}


def root_problems(loaded: LoadedSchema, root: str | None = None) -> list[dict[str, Any]]:
    """``[{"path", "reason", "blocking"}]`` for the root (None: the default root). The record is
    compiled, probed and guarded as a dataset would be; the fields the compiler leaves out are
    listed as not blocking. When the record cannot be generated, every scalar field is then tried
    on its own (within PER_FIELD_BUDGET_S), so each impossible path is named, not only the first;
    a problem blocks when every record needs the field."""
    name = loaded.resolve_root(root)
    tree = loaded.field_tree(name)
    size = sum(1 for start in [tree.root, *tree.definitions.values()] for _ in start.walk())
    if size > MAX_CHECKED_NODES:
        return [
            {
                "path": "",
                "reason": f"not checked before generation: the record has {size:,} fields (the check "
                f"stops at {MAX_CHECKED_NODES:,}); what cannot be generated shows when a dataset is",
                "blocking": False,
            }
        ]
    xsd = loaded.type == "xsd"
    try:
        whole, dead = _first_failure(tree, xsd, loaded.record_validator(name))
    except _TooSlow as slow:
        return [slow.problem]
    problems = [_problem(entry, False) for entry in dict.fromkeys(dead)]
    if whole is None:
        return problems
    started = time.monotonic()
    fields: list[dict[str, Any]] = []
    for node, needed in _scalars(tree.root, True, set()):
        if time.monotonic() - started > PER_FIELD_BUDGET_S:
            break
        try:
            detail, _ = _first_failure(FieldTree(node, node.name or name, tree.definitions), xsd, None)
        except _TooSlow:
            continue  # a scalar is never this costly; its failure shows when a dataset runs
        if detail is not None:
            fields.append({**_problem(detail, needed), "path": node.path})
    if not any(p["blocking"] for p in fields):
        fields.insert(0, _problem(whole, True))
    listed = {p["path"] for p in fields}
    return fields + [p for p in problems if p["path"] not in listed]


def _first_failure(tree: FieldTree, xsd: bool, validator: Any) -> tuple[str | None, list[str]]:
    """The engine's refusal of `tree` (compiled, then a probe block written and guarded), or None;
    and the fields the compiler left out ("path: reason")."""
    compiler = Compiler(
        tree,
        [],
        xsd=xsd,
        null_rate=None,
        record_count=PROBE_RECORDS,
        assertion_render=lambda gen: XmlWriter(gen, xsd=True, root_name=gen.name).records,
    )
    try:
        gen = compiler.compile()
        work = draw_work(gen)
        if work > MAX_DRAW_WORK:
            raise _TooSlow(_slow_problem(gen, work))
        plan = Plan(gen, tree, parse_params({"seed": 0}), PROBE_RECORDS, xsd=xsd, validator=validator)
        plan.write("xml" if xsd else "json", io.BytesIO(), guard=validator is not None)
    except GenerationError as exc:
        return exc.detail, compiler.dead
    return None, compiler.dead


def _slow_problem(gen: Gen, work: float) -> dict[str, Any]:
    """Not blocking (records can be drawn, slowly): the path named is where most of the draws go,
    followed down while one field holds most of its parent's cost."""
    memo: dict[int, float] = {}
    node = gen
    while isinstance(node, ObjectGen):
        costs = [(draw_work(s.gen, memo), s.gen) for s in node.slots if s.gen is not None]
        top = max(costs, key=lambda c: c[0], default=None)
        if top is None or top[0] < draw_work(node, memo) / 2:
            break
        node = top[1]
    return {
        "path": node.node.path,
        "reason": f"not probed before generation and slow to generate: one record draws about "
        f"{work:,.0f} values before optional fields are left out (recursion through optional "
        f"properties, re-drawn if/then/else conditions), so each record takes about a second",
        "blocking": False,
    }


def blocking_problems(loaded: LoadedSchema, root: str | None = None) -> list[dict[str, Any]]:
    """The blocking problems of the root: none (after one probe) when its records can be generated."""
    return [p for p in root_problems(loaded, root) if p["blocking"]]


def _scalars(node: Node, needed: bool, seen: set[int]) -> Iterator[tuple[Node, bool]]:
    """Scalar nodes with whether every record must hold them (required all the way up)."""
    if id(node) in seen:
        return
    seen.add(id(node))
    if node.kind in (Kind.OBJECT,):
        for child in node.children:
            yield from _scalars(child, needed and child.required, seen)
    elif node.kind is Kind.ARRAY:
        for item in [*node.prefix_items, *([node.items] if node.items is not None else [])]:
            yield from _scalars(item, needed and bool(node.min_items), seen)
    elif node.kind is Kind.CHOICE:
        for option in node.options:
            yield from _scalars(option, needed and len(node.options) == 1, seen)
    elif node.kind not in (Kind.REF, Kind.ANY):
        yield node, needed
