"""A floor under the number of nodes one compile attempt visits (`Compiler.count`), found without
building generators, so an attempt certain to pass MAX_COMPILED_NODES is skipped instead of built
and thrown away (UBL 2.1 Invoice at recursion depth 3: 100,000 generators, more than half of its
compile time and its peak memory). Design notes: docs/generation.md.

The floor follows the compiler's walk (`Compiler.node`) and counts a node only when every way
the walk can go visits it before the attempt returns or raises: an object stops at a required
child that may compile to nothing, and everything stops after a node that may raise. What the
floor does not model (conditionals, oneOf narrowing, prefix items, minProperties, `not`) counts
as one node that may raise. Without rules and without shared recursion points, a node compiles
to the same subtree wherever it stands, so each (node, depth) is looked at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.generation.errors import Unsatisfiable
from app.generation.model import SCALAR_KINDS, ChoiceMode, Kind, Node

if TYPE_CHECKING:
    from app.generation.engine.compiler import Compiler


@dataclass(frozen=True, slots=True)
class _Floor:
    nodes: int  # nodes the walk of this node visits whichever way it goes, before returning or raising
    whole: bool  # it surely compiles to a generator (so a parent object goes on past it)
    safe: bool  # it surely raises nothing (so the walk goes on past it at all)


_UNKNOWN = _Floor(1, False, False)
# phrases of Node.unsupported that leave a field no generatable value: an unsatisfiable schema,
# or content (a required xs:any wildcard) the generator cannot produce
_DEAD_MARKS = ("no value is valid", "cannot be generated")


def dead_reason(node: Node) -> str | None:
    """Why the compiler leaves this node out (no generator), if it does for what the node says."""
    if node.kind == Kind.ANY:
        return None
    return next((u for u in node.unsupported if any(m in u for m in _DEAD_MARKS)), None)


def expansion_floor(compiler: Compiler, root: Node) -> int | None:
    """At most the nodes `compiler.node(root, "", 0)` visits at its current depth cap; None when
    the attempt has rules or shares recursion points (not modelled)."""
    if compiler.rules or compiler.shared is not None:
        return None
    return _floor(compiler, root, 0, {}).nodes


def _floor(c: Compiler, node: Node, depth: int, memo: dict[tuple[Node, int], _Floor]) -> _Floor:
    got = memo.get((node, depth))
    if got is None:
        got = memo[(node, depth)] = _node(c, node, depth, memo)
    return got


def _node(c: Compiler, node: Node, depth: int, memo: dict[tuple[Node, int], _Floor]) -> _Floor:
    if node.kind == Kind.REF:
        target = c.tree.definitions.get(node.ref or "")
        if depth >= c.max_depth or target is None:
            return _Floor(1, False, True)
        inner = _floor(c, target, depth + 1, memo)
        return _Floor(1 + inner.nodes, inner.whole, inner.safe)
    if dead_reason(node) is not None:
        return _Floor(1, False, True)
    fixed = node.xml is not None and node.xml.fixed is not None and node.kind in SCALAR_KINDS
    if node.has_const or node.enum is not None or fixed:
        # `choice_leaf`: XSD values are never filtered by other facets, so any value makes a leaf
        listed = node.has_const or fixed or bool(node.enum)
        return _Floor(1, listed and c.xsd, True)
    if node.kind == Kind.OBJECT:
        return _object(c, node, depth, memo)
    if node.kind == Kind.ANY:
        gone = bool(node.negations) or any(
            "no value is valid" in u or "not modelled" in u for u in node.unsupported
        )
        return _Floor(1, not gone, True)
    if node.kind == Kind.ARRAY:
        return _array(c, node, depth, memo)
    if node.kind == Kind.CHOICE:
        return _choice(c, node, depth, memo)
    try:
        c.scalar(node, None, 0, node.name)  # memoised by node: the attempt itself reuses it
    except Unsatisfiable:
        return _Floor(1, False, True)
    return _Floor(1, True, True)


def _object(c: Compiler, node: Node, depth: int, memo: dict[tuple[Node, int], _Floor]) -> _Floor:
    if node.conditionals or node.min_properties or node.negations:
        return _UNKNOWN
    nodes = 1
    for child in node.children:
        f = _floor(c, child, depth, memo)
        nodes += f.nodes
        if not f.safe:
            return _Floor(nodes, False, False)
        if not f.whole and child.required and not (child.name and child.nullable):
            return _Floor(nodes, False, True)  # the object may give up here (no generator)
    return _Floor(nodes, True, True)


def _array(c: Compiler, node: Node, depth: int, memo: dict[tuple[Node, int], _Floor]) -> _Floor:
    if node.conditionals or node.contains is not None or node.prefix_items:
        return _UNKNOWN
    lo = node.min_items or 0
    if node.max_items is not None and lo > node.max_items:
        return _UNKNOWN  # Unsatisfiable
    if node.items is None:
        return _Floor(1, True, True)  # items of any value, drawn without a node
    f = _floor(c, node.items, depth, memo)
    return _Floor(1 + f.nodes, f.whole or lo == 0, f.safe)


def _choice(c: Compiler, node: Node, depth: int, memo: dict[tuple[Node, int], _Floor]) -> _Floor:
    if node.choice_mode == ChoiceMode.ONE_OF:
        return _UNKNOWN  # options narrowed and twins dropped before they are compiled
    nodes, whole = 1, False
    for option in node.options:
        f = _floor(c, option, depth, memo)
        nodes += f.nodes
        if not f.safe:
            return _Floor(nodes, False, False)
        whole = whole or f.whole
    return _Floor(nodes, whole, True)
