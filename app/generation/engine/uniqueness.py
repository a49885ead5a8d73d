"""Uniqueness where real data has it: which fields are unique by default, and XSD identities.

Emails, usernames, UUIDs and fields named like ids, codes and keys are unique within a dataset
unless a rule says `unique: false`. The default is soft: a field whose facets leave fewer values
than the dataset needs draws freely instead of failing, and a field with a pattern is unique only
when a rule asks (a pattern's values are enumerated one at a time). Every unique value is a function of the
row's global key (record index, or record x max items + position) through a keyed permutation, so
values never repeat across blocks, processes or shards, whatever their number, with nothing held
in memory.

XSD identities: an `xs:ID` value is `<element name>-<base-36 code of the permuted key>`, unique
within the dataset (hence within each file) and across the schema's ID fields (each has its own
prefix). An `xs:IDREF`/`xs:IDREFS` value names IDs that exist in the same file: the ID of a field
every record holds (reached from the record root through required, non-repeated children) in a
record drawn from the same file, else an ID of the same row. Design notes: docs/generation.md."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from app.generation.engine.arrays import ArrayGen
from app.generation.engine.choices import ChoiceGen
from app.generation.engine.generators import Gen, LeafGen
from app.generation.engine.objects import ObjectGen
from app.generation.model import Kind, LeafContext, LeafValues
from app.generation.rule_keys import UNIQUE_CATEGORIES, UNIQUE_NAMES
from app.generation.values.categories import normalise_name
from app.generation.values.permutation import FeistelPermutation, base36
from app.generation.values.strings import StringGenerator

_ID_FORMAT = "xsd:ID"
_IDREF_FORMATS = ("xsd:IDREF", "xsd:IDREFS")
_MAX_REFS = 3


def unique_by_default(name: str, kind: Kind, category: str | None, fmt: str | None) -> bool:
    """Whether real data would hold this field's values once per dataset."""
    if fmt == _ID_FORMAT or category in UNIQUE_CATEGORIES:
        return True
    if kind not in (Kind.STRING, Kind.INTEGER):
        return False
    if category is not None and kind is Kind.STRING:
        # the name read in context says what repeats: `salary.code` is a currency code, and
        # random tokens or digests are distinct without a suffix (values/semantics.py)
        return False
    return UNIQUE_NAMES.match(normalise_name(name)) is not None


def default_uniqueness(
    rule: Any, name: str, kind: Kind, category: str | None, fmt: str | None
) -> tuple[bool, bool]:
    """(unique, soft) for a scalar: a rule's `unique` decides; else the default, which a rule's
    distribution or edge_rate (values chosen to repeat or to sit at the limits) turns off."""
    get = rule.get if isinstance(rule, dict) else (lambda key: getattr(rule, key, None))
    if rule is not None and get("unique") is not None:
        return bool(get("unique")), False
    if rule is not None and (get("distribution") is not None or get("edge_rate")):
        return False, False
    default = unique_by_default(name, kind, category, fmt)
    return default, default


def _width(key_space: int) -> int:
    return max(1, math.ceil(math.log(max(key_space, 2), 36)))


class IdGenerator:
    """`xs:ID` values: a prefix and the base-36 code of the row's permuted global key."""

    def __init__(self, fallback: StringGenerator, prefix: str, field_key: int) -> None:
        self.fallback, self.prefix, self.field_key = fallback, prefix, field_key
        self.spec = fallback.spec

    def texts(self, keys: np.ndarray, key_space: int, seed: int) -> list[str]:
        width = _width(key_space)
        perm = FeistelPermutation(36**width, seed ^ self.field_key)
        codes = base36(perm(np.asarray(keys, dtype=np.uint64)), width, lower=True)
        return [self.prefix + c for c in codes]

    def fits(self, key_space: int) -> bool:
        """Whether values of this shape meet the field's own facets (lengths, patterns)."""
        sample = self.texts(np.arange(min(key_space, 16)), key_space, 0)
        return bool(self.fallback.ok(sample).all())

    def generate(self, c: LeafContext, n: int) -> LeafValues:
        return self.generate_unique(c)

    def generate_unique(self, c: LeafContext) -> LeafValues:
        if not self.fits(c.key_space):
            return self.fallback.generate_unique(c)
        return LeafValues(self.texts(c.keys, c.key_space, c.seed))

    def edge_values(self) -> LeafValues:
        return LeafValues([])


class IdRefGenerator:
    """`xs:IDREF(S)` values naming IDs of records in the same file (or of the same row)."""

    def __init__(
        self,
        fallback: StringGenerator,
        targets: list[IdGenerator],
        multiplier: int,
        records_per_file: int | None,
        same_row: bool,
        many: bool,
    ) -> None:
        self.fallback, self.targets, self.many = fallback, targets, many
        self.spec = fallback.spec
        self.multiplier, self.records_per_file, self.same_row = multiplier, records_per_file, same_row

    def _refs(self, c: LeafContext, n: int) -> list[str]:
        if self.same_row:  # targets share this row's key
            keys, space = c.keys, c.key_space
        else:
            space = max(1, c.key_space // self.multiplier)
            record = c.keys // self.multiplier
            per_file = self.records_per_file or space
            start = (record // per_file) * per_file
            size = np.minimum(start + per_file, space) - start
            keys = start + np.floor(c.rng.random(n) * size).astype(np.int64)
        which = c.rng.integers(0, len(self.targets), size=n)
        out = np.empty(n, dtype=object)
        for i, target in enumerate(self.targets):
            rows = np.flatnonzero(which == i)
            if len(rows):
                out[rows] = target.texts(keys[rows], space, c.seed)
        refs: list[str] = out.tolist()
        return refs

    def generate(self, c: LeafContext, n: int) -> LeafValues:
        values = self._refs(c, n)
        if self.many:
            extra = c.rng.integers(0, _MAX_REFS, size=n)
            for _ in range(_MAX_REFS - 1):
                more = self._refs(c, n)
                values = [
                    f"{v} {m}" if e > 0 and m not in v.split() else v
                    for v, m, e in zip(values, more, extra.tolist(), strict=True)
                ]
                extra = extra - 1
        good = self.fallback.ok(values)
        if not good.all():
            spare = self.fallback.generate(c, n).values
            values = [v if g else s for v, g, s in zip(values, good.tolist(), spare, strict=True)]
        return LeafValues(values)

    def generate_unique(self, c: LeafContext) -> LeafValues:
        return self.fallback.generate_unique(c)

    def edge_values(self) -> LeafValues:
        return LeafValues([])


def _stem(owner: str) -> str:
    """The element's local name (`library/book` -> `book`, `ns:item` -> `item`), NCName-safe."""
    local = owner.rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    base = re.sub(r"[^a-z0-9]", "", normalise_name(local)) or "id"
    return base if base[0].isalpha() else "id" + base


def bind_identities(root: Gen, records_per_file: int | None) -> None:
    """Give the tree's xs:ID fields prefixed key-derived values and its xs:IDREF(S) fields targets."""
    ids: list[tuple[LeafGen, str]] = []
    refs: list[tuple[LeafGen, list[LeafGen], int]] = []
    record_level = _walk(root, root.name or "id", 1, [], ids, refs, set(), top=True)
    prefixes: set[str] = set()
    made: dict[int, IdGenerator] = {}
    for leaf, owner in ids:
        stem, number = _stem(owner), 1
        prefix = f"{stem}-"
        while prefix in prefixes:  # one prefix per ID field: their values never meet
            number += 1
            prefix = f"{stem}{number}-"
        prefixes.add(prefix)
        made[id(leaf)] = IdGenerator(leaf.values_gen, prefix, leaf.key)
        leaf.values_gen = made[id(leaf)]
    global_targets = [made[id(g)] for g in record_level if id(g) in made]
    for leaf, same_row, multiplier in refs:
        targets = global_targets or [made[id(g)] for g in same_row if id(g) in made]
        if not targets:
            continue
        leaf.values_gen = IdRefGenerator(
            leaf.values_gen,
            targets,
            multiplier,
            records_per_file,
            same_row=not global_targets,
            many=leaf.values_gen.spec.format == "xsd:IDREFS",
        )


def _is(gen: Gen | None, formats: tuple[str, ...]) -> bool:
    return (
        isinstance(gen, LeafGen)
        and isinstance(gen.values_gen, StringGenerator)
        and gen.spec is not None
        and gen.spec.format in formats
    )


def _walk(
    gen: Gen | None,
    owner: str,
    multiplier: int,
    scope: list[LeafGen],
    ids: list[tuple[LeafGen, str]],
    refs: list[tuple[LeafGen, list[LeafGen], int]],
    seen: set[int],
    top: bool = False,
) -> list[LeafGen]:
    """Collect ID and IDREF leaves once each (recursion shares generators: the first position
    wins); returns the record-level IDs every record holds (top call)."""
    if gen is None or id(gen) in seen:
        return []
    seen.add(id(gen))
    if _is(gen, (_ID_FORMAT,)):
        assert isinstance(gen, LeafGen)
        ids.append((gen, owner))
    elif _is(gen, _IDREF_FORMATS):
        assert isinstance(gen, LeafGen)
        refs.append((gen, scope, multiplier))
    elif isinstance(gen, ObjectGen):
        held = scope + _required_ids(gen)
        for slot in gen.slots:
            name = owner if (not slot.name or slot.name.startswith(("@", "$"))) else slot.name
            _walk(slot.gen, name, multiplier, held, ids, refs, seen)
        return held if top else []
    elif isinstance(gen, ArrayGen):
        for sub in gen.sub_generators():
            _walk(sub, owner, multiplier * gen.cap, [], ids, refs, seen)
    elif isinstance(gen, ChoiceGen):
        for option in gen.options:
            _walk(option, owner, multiplier, scope, ids, refs, seen)
    return []


def _required_ids(obj: ObjectGen) -> list[LeafGen]:
    """ID leaves present in every row of `obj` (required slots through plain objects)."""
    out: list[LeafGen] = []
    for slot in obj.slots:
        g = slot.gen
        if not slot.required or g is None:
            continue
        if _is(g, (_ID_FORMAT,)) and isinstance(g, LeafGen) and g.null_rate == 0:
            out.append(g)
        elif isinstance(g, ObjectGen) and g.null_rate == 0:
            out.extend(_required_ids(g))
    return out


__all__ = [
    "UNIQUE_CATEGORIES",
    "IdGenerator",
    "IdRefGenerator",
    "bind_identities",
    "default_uniqueness",
    "unique_by_default",
]
