"""What the engine cannot generate for one record root, found by running the engine's own checks on a
few records before any dataset exists: the compiler (unsatisfiable fields, dropped optional
fields), a probe block and the validity guard. `/repr` lists them; a dataset request whose root
has a blocking problem is refused at once. Design notes: docs/generation.md."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

from app.generation.engine.compiler import Compiler
from app.generation.errors import GenerationError
from app.generation.model import FieldTree, Kind, Node
from app.generation.plan import Plan, parse_params
from app.generation.schema.loader import LoadedSchema
from app.generation.writers.xml import XmlWriter

PROBE_RECORDS = 16


def _problem(detail: str, blocking: bool) -> dict[str, Any]:
    """`"path: reason"` (the engine's own form) split; a sentence that names no path is the root's."""
    head, sep, rest = detail.partition(": ")
    if sep and head and " " not in head:
        return {"path": head, "reason": rest.rstrip("."), "blocking": blocking}
    return {"path": "", "reason": detail.rstrip("."), "blocking": blocking}


def root_problems(loaded: LoadedSchema, root: str | None = None) -> list[dict[str, Any]]:
    """``[{"path", "reason", "blocking"}]`` for the root (None: the default root). Every scalar
    field is tried on its own (so each impossible one is named, not only the first), then the
    whole record as a dataset would be. A blocking problem means no dataset of this root can be
    generated; the others name optional fields or choice options that cannot be filled."""
    name = loaded.resolve_root(root)
    tree = loaded.field_tree(name)
    xsd = loaded.type == "xsd"
    problems: list[dict[str, Any]] = []
    for node, needed in _scalars(tree.root, True, set()):
        detail = _first_failure(FieldTree(node, node.name or name, tree.definitions), xsd, None)
        if detail is not None:
            problems.append({**_problem(detail, needed), "path": node.path})
    whole = _first_failure(tree, xsd, loaded.record_validator(name))
    if whole is not None and not any(p["blocking"] for p in problems):
        problems.insert(0, _problem(whole, True))
    return problems


def _first_failure(tree: FieldTree, xsd: bool, validator: Any) -> str | None:
    """The engine's refusal of `tree` (compiled, then a probe block written and guarded), or None."""
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
        plan = Plan(gen, tree, parse_params({"seed": 0}), PROBE_RECORDS, xsd=xsd, validator=validator)
        plan.write("xml" if xsd else "json", io.BytesIO(), guard=validator is not None)
    except GenerationError as exc:
        return exc.detail
    return None


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


def blocking_problems(loaded: LoadedSchema, root: str | None = None) -> list[dict[str, Any]]:
    """The blocking problems of the root: none (one probe only) when its records can be generated."""
    name = loaded.resolve_root(root)
    if _first_failure(loaded.field_tree(name), loaded.type == "xsd", loaded.record_validator(name)) is None:
        return []
    return [p for p in root_problems(loaded, name) if p["blocking"]]
