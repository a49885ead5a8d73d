"""The stored GraphQL operations the REST facade runs, read from the `.graphql` documents beside
this file when the package is imported. Selection sets are the REST response shapes, shared as
fragments (fragments.graphql), so a field added there appears in both styles. Each operation has
exactly one top-level field: its value is the REST response body."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    NonNullTypeNode,
    OperationDefinitionNode,
    OperationType,
    parse,
    print_ast,
    visit,
)
from graphql.language import Visitor

DOCUMENTS = Path(__file__).parent


@dataclass(frozen=True, slots=True)
class Operation:
    name: str
    kind: Literal["query", "mutation"]
    field: str  # the single top-level field: whose value is the response body
    variables: frozenset[str]
    required: frozenset[str]  # non-null variables without a default: the caller must supply them
    document: str  # the operation and the fragments it uses, as sent to the schema


class _Spreads(Visitor):
    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def enter_fragment_spread(self, node: FragmentSpreadNode, *_: object) -> None:
        self.names.add(node.name.value)


def _spreads(node: OperationDefinitionNode | FragmentDefinitionNode) -> set[str]:
    found = _Spreads()
    visit(node, found)
    return found.names


def _used_fragments(node: OperationDefinitionNode, fragments: dict[str, FragmentDefinitionNode]) -> list[str]:
    """The fragments an operation spreads, directly or through other fragments, sorted by name."""
    pending, used = _spreads(node), set()
    while pending:
        name = pending.pop()
        if name in used:
            continue
        if name not in fragments:
            raise ValueError(
                f"Operation {node.name.value if node.name else '?'} spreads unknown fragment {name}."
            )
        used.add(name)
        pending |= _spreads(fragments[name])
    return sorted(used)


def _top_field(node: OperationDefinitionNode) -> str:
    selections = node.selection_set.selections
    name = node.name.value if node.name else "(anonymous)"
    if len(selections) != 1 or not isinstance(selections[0], FieldNode) or selections[0].alias:
        raise ValueError(
            f"Operation {name} must select exactly one top-level field (no alias): its value is "
            "the REST body."
        )
    return selections[0].name.value


def operation_from(node: OperationDefinitionNode, fragments: dict[str, FragmentDefinitionNode]) -> Operation:
    if node.name is None:
        raise ValueError("Every stored operation needs a name.")
    kind: Literal["query", "mutation"]
    if node.operation is OperationType.QUERY:
        kind = "query"
    elif node.operation is OperationType.MUTATION:
        kind = "mutation"
    else:
        raise ValueError(f"Operation {node.name.value}: only queries and mutations are stored.")
    definitions = [node, *(fragments[name] for name in _used_fragments(node, fragments))]
    variables = node.variable_definitions or ()
    return Operation(
        name=node.name.value,
        kind=kind,
        field=_top_field(node),
        variables=frozenset(v.variable.name.value for v in variables),
        required=frozenset(
            v.variable.name.value
            for v in variables
            if isinstance(v.type, NonNullTypeNode) and v.default_value is None
        ),
        document=print_ast(DocumentNode(definitions=tuple(definitions))),
    )


def parse_operations(sources: list[str]) -> dict[str, Operation]:
    """Operations by name from GraphQL sources whose fragments are shared across all of them."""
    nodes = [d for source in sources for d in parse(source).definitions]
    fragments: dict[str, FragmentDefinitionNode] = {}
    for node in nodes:
        if isinstance(node, FragmentDefinitionNode):
            if node.name.value in fragments:
                raise ValueError(f"Fragment {node.name.value} is defined twice.")
            fragments[node.name.value] = node
    operations: dict[str, Operation] = {}
    for node in nodes:
        if isinstance(node, OperationDefinitionNode):
            found = operation_from(node, fragments)
            if found.name in operations:
                raise ValueError(f"Operation {found.name} is defined twice.")
            operations[found.name] = found
    unused = set(fragments) - {name for o in operations.values() for name in _fragment_names(o)}
    if unused:
        raise ValueError(f"Fragments no operation uses: {', '.join(sorted(unused))}.")
    return operations


def _fragment_names(found: Operation) -> list[str]:
    return [d.name.value for d in parse(found.document).definitions if isinstance(d, FragmentDefinitionNode)]


OPERATIONS: dict[str, Operation] = parse_operations(
    [path.read_text() for path in sorted(DOCUMENTS.glob("*.graphql"))]
)


def op(name: str) -> Operation:
    """A stored operation by name (a typo fails when the route table loads)."""
    try:
        return OPERATIONS[name]
    except KeyError:
        raise KeyError(f"No stored operation named {name!r} in {DOCUMENTS}.") from None
