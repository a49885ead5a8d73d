"""How much one field expands a record, checked on the field tree before anything is drawn: a
field that needs more than MAX_FIELD_CHARS characters in every record (app/generation/limits.py)
refuses the schema with a sentence naming the field, what asks for it and the limit. A 101-byte
schema with `"pattern": "^[a-z]{3000000}$"` took a 3-record preview 55 s and the API server to
2.6 GB before."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from app.generation.errors import SchemaError
from app.generation.limits import MAX_FIELD_CHARS, VALUE_CHARS_FLOOR
from app.generation.model import FieldTree, Kind, Node
from app.generation.values.regex import shortest_match


@dataclass(frozen=True, slots=True)
class _Need:
    """The costliest field under a node, for one occurrence of that node: the characters it
    needs, its path and why."""

    chars: int
    path: str
    why: str

    def times(self, count: int, what: str) -> _Need:
        """Repeated `count` times in a record by `what` (minItems, ...)."""
        if count <= 1 or not self.chars:
            return self
        each = "" if self.why == _A_VALUE else f" of items with {self.why}"
        return _Need(self.chars * count, self.path, f"{what} {count:,}{each}")


_A_VALUE = "a value"
_NOTHING = _Need(0, "", "")
# a bound with more digits than this is a value of that many characters (10**5000), not a type's range
_BOUND_DIGITS = 64


def refuse_costly_fields(tree: FieldTree, xsd: bool) -> None:
    """SchemaError naming the costliest field when it needs more than MAX_FIELD_CHARS characters
    in every record of `tree` (`xsd`: named in XSD's words)."""
    need = _Walk(tree, xsd).need(tree.root)
    if need.chars > MAX_FIELD_CHARS:
        raise SchemaError(
            f"{need.path or '(root)'}: {need.why}: each record would need {need.chars:,} characters of "
            f"this field, and the limit is {MAX_FIELD_CHARS:,} per field (each value counted as at "
            f"least {VALUE_CHARS_FLOOR})."
        )


class _Walk:
    """One pass over the tree; a subtree reached twice (a shared definition) is measured once,
    and a recursion point being measured counts for nothing where it recurs. Iterative: a deep
    tree (XHTML's nested groups) exhausted Python's stack when this walk recursed."""

    def __init__(self, tree: FieldTree, xsd: bool) -> None:
        self.definitions = tree.definitions
        self.xsd = xsd
        self.memo: dict[int, _Need] = {}
        self.active: set[int] = set()

    def need(self, root: Node | None) -> _Need:
        if root is None:
            return _NOTHING
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, children_done = stack.pop()
            key = id(node)
            if children_done:
                self.active.discard(key)
                self.memo[key] = self._measure(node)
                continue
            if key in self.memo or key in self.active:
                continue
            self.active.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in self._children(node) if child is not None)
        return self.memo.get(id(root), _NOTHING)

    def _known(self, node: Node | None) -> _Need:
        """A child's need once measured; a recursion point still being measured counts nothing."""
        return _NOTHING if node is None else self.memo.get(id(node), _NOTHING)

    def _children(self, node: Node) -> list[Node | None]:
        if node.kind is Kind.REF:
            return [self.definitions.get(node.ref or "")]
        if node.kind is Kind.OBJECT:
            found: list[Node | None] = [*node.children, node.additional]
            found += [n for _, n in node.pattern_properties]
            for cond in node.conditionals:
                found += [cond.if_, cond.then, cond.else_]
            return found
        if node.kind is Kind.ARRAY:
            return [node.items, *node.prefix_items, node.contains]
        if node.kind is Kind.CHOICE:
            return list(node.options)
        return []

    def _measure(self, node: Node) -> _Need:
        """The node's need from its children's, which are measured already."""
        if node.kind is Kind.REF:
            return self._known(self.definitions.get(node.ref or ""))
        if node.kind is Kind.OBJECT:
            own = _Need(0, node.path, "")
            if node.min_properties:
                own = _Need(node.min_properties * VALUE_CHARS_FLOOR, node.path, f"minProperties {node.min_properties:,}")
            parts = [own, *(self._known(c) for c in node.children), self._known(node.additional)]
            parts += [self._known(n) for _, n in node.pattern_properties]
            for cond in node.conditionals:
                parts += [self._known(cond.if_), self._known(cond.then), self._known(cond.else_)]
            return max(parts, key=_chars)
        if node.kind is Kind.ARRAY:
            repeats = max(node.min_items or 0, 1)
            listed = node.xml is not None and node.xml.list_value
            what = "minLength" if listed else "minOccurs" if self.xsd else "minItems"
            parts = [self._known(node.items).times(repeats, what), *(self._known(p) for p in node.prefix_items)]
            if node.contains is not None:
                parts.append(self._known(node.contains).times(max(node.min_contains or 1, 1), "minContains"))
            return max(parts, key=_chars)
        if node.kind is Kind.CHOICE:
            return max((self._known(o) for o in node.options), key=_chars, default=_NOTHING)
        return _value_need(node)


def _chars(need: _Need) -> int:
    return need.chars


def _value_need(node: Node) -> _Need:
    """The fewest characters one value of a scalar field takes, with what asks for them (the
    sentence is written only for the largest: this runs for every field of every tree built)."""
    chars, source, detail = VALUE_CHARS_FLOOR, "", ""
    if node.min_length and node.min_length > chars:
        chars, source = node.min_length, "length" if node.max_length == node.min_length else "minLength"
    for pattern in node.patterns:
        shortest = shortest_match(pattern)
        if shortest > chars:
            chars, source, detail = shortest, "pattern", pattern
    for digits, facet in ((node.total_digits, "totalDigits"), (node.fraction_digits, "fractionDigits")):
        if digits and digits > chars:
            chars, source = digits, facet
    for bound, name in ((node.minimum, "minimum"), (node.maximum, "maximum")):
        if isinstance(bound, int | Decimal) and not isinstance(bound, bool):
            digits = len(str(bound))
            if digits > _BOUND_DIGITS and digits > chars:
                chars, source, detail = digits, "bound", name
    if node.enum or node.has_const or node.xml is not None:
        fixed = [*(node.enum or []), *([node.const] if node.has_const else [])]
        fixed += [node.xml.fixed, node.xml.default] if node.xml is not None else []
        longest = max((len(v) for v in fixed if isinstance(v, str)), default=0)
        if longest > chars:
            chars, source = longest, "listed"
    return _Need(chars, node.path, _why(source, chars, detail))


def _why(source: str, chars: int, detail: str) -> str:
    if not source:
        return _A_VALUE
    if source == "pattern":
        shown = detail.replace("\\Z", "$")  # as written: JSON Schema's `$` is translated to \Z
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        return f"pattern '{shown}' matches nothing shorter than {chars:,} characters"
    if source == "bound":
        return f"a {detail} of {chars:,} characters"
    if source == "listed":
        return f"a listed value of {chars:,} characters"
    return f"{source} {chars:,}"


def repetitions(tree: FieldTree, path: str) -> int:
    """How many values of the field at `path` every record holds at least: the product of the
    minimum counts of the arrays on the way to it (its own too), 1 outside arrays. A constraint
    rule's pattern or min_length is measured with it (a field of 500 items each needing 100
    characters needs 50,000). Follows the root's tree only (not recursion points)."""
    best = 0
    stack: list[tuple[Node, int]] = [(tree.root, 1)]
    while stack:
        node, count = stack.pop()
        if node.path and node.path != path and not path.startswith(node.path + "."):
            continue
        if node.kind is Kind.ARRAY:
            count *= max(node.min_items or 0, 1)
            if node.path == path:
                best = max(best, count)
            stack.extend((child, count) for child in [*node.prefix_items, *filter(None, [node.items])])
            continue
        if node.path == path:
            best = max(best, count)
            continue
        stack.extend((child, count) for child in [*node.children, *node.options])
    return max(best, 1)
