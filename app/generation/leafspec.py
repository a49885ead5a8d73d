"""`LeafSpec`: every facet that applies to one scalar field, after constraint rules are merged in,
and `LeafContext`: what a scalar generator may read while filling a column.

The compiler builds one LeafSpec per scalar node (schema facets intersected with the rule for its
path); the value generators (`numbers.py`, `temporal.py`, `strings.py`) construct values from it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

from app.generation.fieldmodel import Kind


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

    def subset(self, rows: np.ndarray, rng: np.random.Generator) -> LeafContext:
        shared = self.shared

        def sub_shared(group: str, size: int) -> np.ndarray:
            return shared(group, size)[rows]

        return LeafContext(rng, self.locale, self.keys[rows], self.key_space, sub_shared, self.seed,
                           self.field_key)


@dataclass
class LeafValues:
    values: list[Any]
    text: list[str] | None = None  # lexical text where it differs from values
