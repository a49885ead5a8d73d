"""The field model: the one tree every schema dialect (JSON Schema, XSD) is parsed into.
Design notes: docs/generation.md."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from enum import StrEnum
from typing import Any

import numpy as np
from numpy.typing import NDArray


class Kind(StrEnum):
    OBJECT = "object"
    ARRAY = "array"
    CHOICE = "choice"  # oneOf / anyOf / XSD choice / union types: exactly one of `options`
    STRING = "string"
    INTEGER = "integer"
    NUMBER = "number"
    BOOLEAN = "boolean"
    DATE = "date"
    DATETIME = "datetime"
    TIME = "time"
    NULL = "null"
    ANY = "any"  # unconstrained value (JSON `{}`/`true`, XSD anyType/anySimpleType)
    REF = "ref"  # recursion point, see FieldTree.definitions


SCALAR_KINDS = frozenset(
    {Kind.STRING, Kind.INTEGER, Kind.NUMBER, Kind.BOOLEAN, Kind.DATE, Kind.DATETIME, Kind.TIME, Kind.NULL}
)


class ChoiceMode(StrEnum):
    ONE_OF = "oneOf"  # exactly one option may match
    ANY_OF = "anyOf"  # at least one option matches
    XSD_CHOICE = "xsd_choice"  # XSD element choice
    UNION = "union"  # JSON type list / XSD union member types


@dataclass(slots=True)
class XmlInfo:
    """How a node appears in XML (XSD schemas only)."""

    namespace: str | None = None  # namespace URI of the element/attribute when qualified
    attribute: bool = False  # an XML attribute of the parent element
    text: bool = False  # the simple content (text) of the parent element
    all_group: bool = False  # OBJECT from xs:all (children in any order)
    default: str | None = None  # XSD default value (lexical)
    fixed: str | None = None  # XSD fixed value (lexical): the only allowed value
    xsd_type: str | None = None  # qualified name of the declared type, for messages
    abstract: bool = False
    substitutes: list[str] = field(default_factory=list)  # substitution group members (names)
    list_value: bool = False  # ARRAY from an XSD list type: items are one space-separated text
    # xs:assert on the element's complex type (OBJECT nodes): the tests, and a RecordValidator of
    # the element whose `xml_errors` judges rendered instances (the generator re-draws failures)
    assertions: list[str] = field(default_factory=list)
    assertion_check: Any = None


@dataclass(slots=True)
class Conditional:
    """JSON Schema if/then/else attached to an OBJECT."""

    if_: Node
    then: Node | None = None
    else_: Node | None = None
    # a schema-valued dependency: the property whose presence applies `then` (leaving it out
    # meets the condition when `then` cannot be met)
    trigger: str | None = None


@dataclass(eq=False, slots=True)
class Node:
    kind: Kind
    name: str = ""
    path: str = ""
    required: bool = True  # for a child of an OBJECT: must be present
    nullable: bool = False  # JSON null allowed / XSD nillable
    description: str | None = None

    # scalar facets
    minimum: Decimal | int | str | None = None
    maximum: Decimal | int | str | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    multiple_of: Decimal | None = None
    total_digits: int | None = None
    fraction_digits: int | None = None
    min_length: int | None = None
    max_length: int | None = None
    # every listed pattern must match (allOf / XSD restriction chain); each is already in
    # Python `re` syntax and fully anchored semantics are noted by `pattern_anchored`
    patterns: list[str] = field(default_factory=list)
    pattern_anchored: bool = False  # True for XSD (implicitly anchored), False for ECMA search
    format: str | None = None  # JSON Schema format, or `xsd:<builtin>` for XSD-only lexical spaces
    enum: list[Any] | None = None
    const: Any = None
    has_const: bool = False
    default: Any = None

    # OBJECT
    children: list[Node] = field(default_factory=list)
    additional_properties: bool = True
    dependent_required: dict[str, list[str]] = field(default_factory=dict)
    conditionals: list[Conditional] = field(default_factory=list)  # OBJECT or ARRAY
    min_properties: int | None = None
    max_properties: int | None = None
    # patternProperties as (Python `re` pattern, value schema); keys matching one are allowed even
    # when additional_properties is False. The generator names such keys only to meet minProperties.
    pattern_properties: list[tuple[str, Node]] = field(default_factory=list)
    additional: Node | None = None  # the additionalProperties schema, when it is one
    property_names: Node | None = None  # propertyNames (a STRING node) for generated keys

    # any value: must NOT match any of these (JSON Schema `not`; `not: {anyOf: [a, b]}` is two)
    negations: list[Node] = field(default_factory=list)

    # ARRAY
    items: Node | None = None
    prefix_items: list[Node] = field(default_factory=list)
    min_items: int | None = None
    max_items: int | None = None
    unique_items: bool = False
    # `contains`: at least min_contains (default 1) and at most max_contains items match it
    contains: Node | None = None
    min_contains: int | None = None
    max_contains: int | None = None

    # CHOICE
    options: list[Node] = field(default_factory=list)
    choice_mode: ChoiceMode | None = None

    # REF
    ref: str | None = None

    xml: XmlInfo | None = None
    # what the model could not express, in words, e.g. "patternProperties ignored"
    unsupported: list[str] = field(default_factory=list)
    # False for a JSON Schema node whose kind was inferred from its keywords (no `type`): those
    # keywords constrain only values of their own type, any other value (null too) meets them
    typed: bool = True

    def child(self, name: str) -> Node | None:
        for c in self.children:
            if c.name == name:
                return c
        return None

    def walk(self) -> Iterator[Node]:
        """Yield this node and every node below it (REF targets are not followed)."""
        yield self
        for c in self.children:
            yield from c.walk()
        if self.items is not None:
            yield from self.items.walk()
        for p in self.prefix_items:
            yield from p.walk()
        for o in self.options:
            yield from o.walk()


@dataclass(slots=True)
class FieldTree:
    """The field model of one record root of one schema."""

    root: Node
    root_name: str
    definitions: dict[str, Node] = field(default_factory=dict)

    def find(self, path: str) -> Node | None:
        """The first node whose path equals `path` (items share their array's path; the array wins)."""
        for node in self.root.walk():
            if node.path == path:
                return node
        for d in self.definitions.values():
            for node in d.walk():
                if node.path == path:
                    return node
        return None


def required_names(node: Node) -> list[str] | None:
    """The names of an object schema that only requires properties, whatever their values (the
    usual body of a `not`: `{"required": ["a", "b"]}`), else None."""
    if (
        node.kind is not Kind.OBJECT
        or node.negations
        or node.conditionals
        or node.enum is not None
        or node.has_const
        or node.pattern_properties
        or not node.additional_properties
        or node.min_properties
        or node.max_properties is not None
        or node.dependent_required
    ):
        return None
    if any(
        c.kind is not Kind.ANY
        or c.negations
        or c.enum is not None
        or c.has_const
        or not c.name
        or c.unsupported
        for c in node.children
    ):
        return None
    names = [c.name for c in node.children if c.required]
    return names if names else None


@dataclass
class LeafSpec:
    path: str
    name: str
    kind: Kind
    xsd: bool = False  # XSD lexical rules (no JSON float multipleOf check, optional time zones)
    minimum: Decimal | int | str | None = None
    maximum: Decimal | int | str | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    multiple_of: Decimal | None = None
    total_digits: int | None = None
    fraction_digits: int | None = None
    min_length: int | None = None
    max_length: int | None = None
    patterns: list[tuple[str, bool]] = field(default_factory=list)  # (pattern, anchored)
    format: str | None = None
    enum: list[Any] | None = None
    const: Any = None
    has_const: bool = False
    category: str | None = None
    unique: bool = False
    row_number: bool = False  # an `id`-like integer: the record's 1-based index (unique for free)
    distribution: str | None = None  # a rule's uniform | normal | lognormal | skewed (distributions.py)
    mean: float | None = None
    sd: float | None = None
    edge_rate: float = 0.0  # share of values drawn from the field's edge cases
    unique_soft: bool = False  # unique by default only: too few values -> drawn freely, no error


@dataclass
class LeafContext:
    """Per-call inputs of a scalar generator."""

    rng: np.random.Generator
    locale: str
    keys: np.ndarray  # global key of each row (record index, or record x max items + position)
    key_space: int  # keys are < key_space
    shared: Callable[[str, int], np.ndarray]  # object-level group indexes, see category_values
    seed: int = 0
    field_key: int = 0  # stable per-field key (unique permutations are keyed by seed and field)

    def subset(self, rows: NDArray[np.intp], rng: np.random.Generator) -> LeafContext:
        shared = self.shared

        def sub_shared(group: str, size: int) -> np.ndarray:
            return shared(group, size)[rows]

        return LeafContext(
            rng, self.locale, self.keys[rows], self.key_space, sub_shared, self.seed, self.field_key
        )


@dataclass
class LeafValues:
    values: list[Any]
    text: list[str] | None = None  # lexical text where it differs from values
