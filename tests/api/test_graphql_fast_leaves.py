"""The shortcut for plain leaf fields and lists of such objects (app/graphql/execution.py) answers
exactly what graphql-core's general execution answers: the same data and the same errors (message,
path, located nulls), for plain values, nulls, lists, null items, empty lists, enums, aliases,
fragments, directives, values a scalar refuses, attributes that raise, and awaitables, and values
a scalar passes through unchanged (strings, booleans, integers within 32 bits) next to those it
converts or refuses (a boolean as an Int, an integer as a Boolean, an Int beyond 32 bits)."""

from __future__ import annotations

import asyncio
import enum
from typing import Any

import pytest
import strawberry
from strawberry.schema.config import StrawberryConfig

from app.graphql.execution import FastLeafExecutionContext


@strawberry.enum
class Colour(enum.Enum):
    red = "red"
    green = "green"


class Row:
    """A source object with every kind of leaf (some deliberately wrong for their type)."""

    def __init__(self, n: int) -> None:
        self.id = n
        self.name = f"row {n}"
        self.note: str | None = None if n % 2 else "even"
        self.tags = ["a", "b"] if n % 3 else []
        self.colour = Colour.red if n % 2 else Colour.green
        self.broken_int: Any = "not a number" if n == 3 else n
        self.null_in_non_null: Any = None if n == 4 else "ok"
        self.items_with_null: Any = ["x", None] if n == 5 else ["x"]
        # values the scalars pass through unchanged only within their bounds and exact types
        self.big: Any = n * 2**30 if n != 1 else True  # 2**31 and above are no GraphQL Int
        self.flag: Any = n % 2 == 0 if n != 7 else 1
        self.codes: Any = [n * 2**30, "x"] if n == 3 else [n, -(2**31)]

    @property
    def raises(self) -> str:
        if self.id == 6:
            raise ValueError("attribute failed")
        return "fine"


@strawberry.type
class Item:
    id: int
    name: str
    note: str | None
    tags: list[str]
    colour: Colour
    broken_int: int
    null_in_non_null: str
    items_with_null: list[str]
    big: int
    flag: bool
    codes: list[str]
    raises: str

    @strawberry.field
    async def later(self) -> str:
        return f"later {self.id}"


@strawberry.type
class Query:
    @strawberry.field
    def items(self, count: int = 8) -> list[Item]:
        return [Row(n) for n in range(count)]  # type: ignore[misc]  # rows stand in for Item

    @strawberry.field
    def item(self, n: int) -> Item | None:
        return Row(n)  # type: ignore[return-value]

    @strawberry.field
    def some_items(self) -> list[Item | None]:
        return [Row(1), None, Row(2)]  # type: ignore[list-item]


QUERIES = [
    "{ items { id name note tags colour } }",
    "{ items { id name later } }",
    "{ items { a: id b: name id } }",
    "{ items { ...F name } } fragment F on Item { id name colour }",
    "query($yes: Boolean!) { items { id name @include(if: $yes) note @skip(if: $yes) } }",
    "{ items { id broken_int } }",
    "{ items { id null_in_non_null } }",
    "{ items { id items_with_null } }",
    "{ items { id raises } }",
    "{ items { id big } }",
    "{ items { id flag } }",
    "{ items { id codes } }",
    "{ item(n: 1) { big flag } }",
    "{ item(n: 4) { id null_in_non_null } }",
    "{ item(n: 3) { broken_int name } }",
    "{ items { __typename id } }",
    "{ some_items { id name } }",
    "{ items(count: 0) { id } }",
    "{ items { id } more: items(count: 2) { name tags } }",
]


def _run(schema: strawberry.Schema, query: str) -> dict[str, Any]:
    result = asyncio.run(schema.execute(query, variable_values={"yes": True}))
    return {"data": result.data, "errors": [e.formatted for e in result.errors or []]}


@pytest.mark.parametrize("query", QUERIES)
def test_same_answers_as_the_general_execution(query: str) -> None:
    config = StrawberryConfig(auto_camel_case=False)
    general = strawberry.Schema(query=Query, config=config)
    fast = strawberry.Schema(query=Query, config=config, execution_context_class=FastLeafExecutionContext)
    assert _run(fast, query) == _run(general, query)
