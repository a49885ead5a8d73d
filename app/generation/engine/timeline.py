"""Ordered time fields within one object (created < updated < deleted, start < end, birth < hire,
and every `after` rule) and an age that matches the birth date. Values are whole days (dates) or
seconds (date-times, times) drawn in numpy; every one stays inside its own field's range.
Design notes: docs/generation.md (records that agree with themselves)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

import numpy as np

from app.generation.engine.agreement import Unit, UnitInput, settle
from app.generation.engine.columns import Leaf
from app.generation.engine.generators import LeafGen
from app.generation.errors import Unsatisfiable
from app.generation.model import Kind
from app.generation.ordering import HIRE_AGE_YEARS, TEMPORAL_KINDS, is_age_name, time_role
from app.generation.values.category_values import REFERENCE_DAY
from app.generation.values.numbers import NumberGenerator
from app.generation.values.temporal import TemporalGenerator

_EPOCH = date(1970, 1, 1)
_REF = date.fromisoformat(REFERENCE_DAY)
_MAX_AGE = 200


@dataclass(eq=False)
class _Node:
    slot: int
    gen: LeafGen
    tg: TemporalGenerator
    preds: list[tuple[int, int]] = field(default_factory=list)  # (node index, gap in units)
    earliest: int = 0
    latest: int = 0


def _epochs(values: list[object], kind: Kind) -> tuple[np.ndarray, np.ndarray]:
    """Rendered ISO values -> (days or seconds as int64, present mask)."""
    present = np.fromiter((v is not None for v in values), dtype=bool, count=len(values))
    if kind is Kind.DATE:
        texts = [v[:10] if isinstance(v, str) else "1970-01-01" for v in values]
        return np.array(texts, dtype="datetime64[D]").astype(np.int64), present
    if kind is Kind.DATETIME:
        texts = [v[:19] if isinstance(v, str) else "1970-01-01T00:00:00" for v in values]
        return np.array(texts, dtype="datetime64[s]").astype(np.int64), present
    texts = ["1970-01-01T" + v[:8] if isinstance(v, str) else "1970-01-01T00:00:00" for v in values]
    return np.array(texts, dtype="datetime64[s]").astype(np.int64), present


def _uniform(rng: np.random.Generator, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    span = (hi - lo + 1).astype(np.float64)
    out: np.ndarray = lo + np.minimum((rng.random(len(lo)) * span).astype(np.int64), hi - lo)
    return out


@dataclass(eq=False)
class TimeUnit(Unit):
    nodes: list[_Node] = field(default_factory=list)  # in topological order
    age: tuple[int, LeafGen, int] | None = None  # (age slot, its generator, birth node index)
    slots: tuple[int, ...] = ()

    def fill(self, u: UnitInput) -> None:
        n = u.rows.n
        vals: list[np.ndarray] = []
        has: list[np.ndarray] = []
        for k, node in enumerate(self.nodes):
            if not node.preds and (self.age is None or self.age[2] != k):
                # a first field keeps its own draw (its rules: distribution, edges, nulls); only
                # values later successors leave no room after are drawn again
                value, present = self._own(u, node)
                vals.append(value)
                has.append(present)
                continue
            rng = u.bc.rng(node.gen.key ^ 0x71E)
            tg = node.tg
            lower = np.full(n, node.earliest, dtype=np.int64)
            for p, gap in node.preds:
                lower = np.where(has[p], np.maximum(lower, vals[p] + gap), lower)
            upper = np.full(n, node.latest, dtype=np.int64)
            ok = lower <= upper
            born = self._birth(u, k, lower, upper) if self.age is not None and self.age[2] == k else None
            # the plausible window where it fits, else the whole feasible stretch
            lo_w, hi_w = np.maximum(lower, tg.a), np.minimum(upper, tg.b)
            empty = lo_w > hi_w
            width = max(tg.b - tg.a, 0)
            lo_w = np.where(
                empty & (lower > tg.b), lower, np.where(empty, np.maximum(lower, upper - width), lo_w)
            )
            hi_w = np.where(
                empty & (lower > tg.b), np.minimum(upper, lower + width), np.where(empty, upper, hi_w)
            )
            drawn = _uniform(rng, lo_w, np.maximum(hi_w, lo_w))
            if born is not None:
                drawn = np.where(born[1], born[0], drawn)
            leaf = settle(node.gen, u, tg._render(np.where(ok, drawn, lower)).values, ok)
            u.fields[node.slot] = leaf
            value, present = _epochs(leaf.values, tg.kind)
            vals.append(value)
            has.append(present)

    @staticmethod
    def _own(u: UnitInput, node: _Node) -> tuple[np.ndarray, np.ndarray]:
        leaf = node.gen.generate(u.bc, u.rows, u.shared)
        value, present = _epochs(leaf.values, node.tg.kind)
        late = present & ((value < node.earliest) | (value > node.latest))
        if late.any():
            tg = node.tg
            rows = np.flatnonzero(late)
            lo, hi = max(node.earliest, tg.a), min(node.latest, tg.b)
            if lo > hi:
                lo, hi = node.earliest, node.latest
            rng = u.bc.rng(node.gen.key ^ 0x71F)
            redrawn = rng.integers(lo, hi + 1, size=rows.size)
            values = list(leaf.values)
            for j, text in zip(rows.tolist(), tg._render(redrawn).values, strict=True):
                values[j] = text
            value[rows] = redrawn
            leaf = Leaf(values, leaf.kind, None)
        u.fields[node.slot] = leaf
        return value, present

    def _birth(
        self, u: UnitInput, k: int, lower: np.ndarray, upper: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Birth days matching the age column (already drawn): (days, rows where one fits)."""
        assert self.age is not None
        slot = self.age[0]
        col = u.fields[slot]
        n = u.rows.n
        ages = np.full(n, -1, dtype=np.int64)
        if col is not None:
            raw = getattr(col, "values", None) or []
            ages = np.fromiter(
                (
                    int(a) if isinstance(a, int) and not isinstance(a, bool) and 0 <= a <= _MAX_AGE else -1
                    for a in raw
                ),
                dtype=np.int64,
                count=n,
            )
        table_hi, table_lo = _AGE_LAST_DAY, _AGE_FIRST_DAY
        safe = np.clip(ages, 0, _MAX_AGE)
        lo = np.maximum(table_lo[safe], lower)
        hi = np.minimum(table_hi[safe], upper)
        fits = (ages >= 0) & (lo <= hi)
        rng = u.bc.rng(self.nodes[k].gen.key ^ 0xB17)
        return _uniform(rng, lo, np.maximum(hi, lo)), fits


def _age_table() -> tuple[np.ndarray, np.ndarray]:
    """For each age 0.._MAX_AGE: the first and last birth day (epoch days) of people that age on
    REFERENCE_DAY."""
    first, last = [], []
    for age in range(_MAX_AGE + 1):
        y = _REF.year - age
        last_day = date(y, _REF.month, _REF.day) if y >= 1 else date(1, 1, 1)
        first_day = date(y - 1, _REF.month, _REF.day) if y - 1 >= 1 else date(1, 1, 1)
        last.append((last_day - _EPOCH).days)
        first.append((first_day - _EPOCH).days + 1)
    return np.array(first, dtype=np.int64), np.array(last, dtype=np.int64)


_AGE_FIRST_DAY, _AGE_LAST_DAY = _age_table()


def age_of(birth: date) -> int:
    """Whole years from `birth` to REFERENCE_DAY: what an `age` beside a birth date says."""
    return _REF.year - birth.year - ((_REF.month, _REF.day) < (birth.month, birth.day))


def _temporal(gen: LeafGen) -> TemporalGenerator | None:
    tg = gen.values_gen
    if (
        not isinstance(tg, TemporalGenerator)
        or gen.choices is not None
        or gen.negations
        or gen.spec is None
        or gen.spec.unique
        or gen.spec.patterns
        or tg.kind not in TEMPORAL_KINDS
    ):
        return None
    return tg


def _edges(temporal: Mapping[int, LeafGen], after: Mapping[str, str]) -> list[tuple[int, int, int, bool]]:
    """(earlier slot, later slot, gap in units, explicit) edges: `after` rules first, then pairs
    the names give (consecutive ranks of one sequence and qualifier, same kind)."""
    by_path = {g.node.path: i for i, g in temporal.items()}
    edges = [
        (by_path[target], by_path[path], 1, True)
        for path, target in after.items()
        if path in by_path and target in by_path
    ]
    roles = {i: time_role(g.node.name) for i, g in temporal.items()}
    groups: dict[tuple[str, str, Kind], dict[int, list[int]]] = {}
    for i, role in roles.items():
        if role is not None:
            kind = temporal[i].values_gen.kind
            groups.setdefault((role.sequence, role.qualifier, kind), {}).setdefault(role.rank, []).append(i)
    for (seq, _q, kind), ranks in groups.items():
        ordered = sorted(ranks)
        for a, b in itertools.pairwise(ordered):
            gap = 1
            if seq == "employment" and a == 0:
                gap = int(HIRE_AGE_YEARS * 365.25) * (86400 if kind is Kind.DATETIME else 1)
            for x in ranks[a]:
                for y in ranks[b]:
                    edges.append((x, y, gap, False))
    return edges


def _order(slots: list[int], edges: list[tuple[int, int, int, bool]]) -> list[int] | None:
    """A topological order of `slots` under `edges`, None when they form a cycle."""
    preds = {s: {a for a, b, _, _ in edges if b == s} for s in slots}
    out: list[int] = []
    while len(out) < len(slots):
        ready = [s for s in slots if s not in out and preds[s] <= set(out)]
        if not ready:
            return None
        out.append(ready[0])
    return out


def _bounds(nodes: list[_Node]) -> bool:
    """Earliest and latest value of each node; False when some node has no room."""
    for node in nodes:
        node.earliest = max([node.tg.lo, *(nodes[p].earliest + g for p, g in node.preds)])
    for k in range(len(nodes) - 1, -1, -1):
        succ = [(nodes[j].latest - g) for j, nd in enumerate(nodes) for p, g in nd.preds if p == k]
        nodes[k].latest = min([nodes[k].tg.hi, *succ])
    return all(node.earliest <= node.latest for node in nodes)


def _build(temporal: Mapping[int, LeafGen], edges: list[tuple[int, int, int, bool]]) -> list[_Node] | None:
    slots = sorted({a for a, _, _, _ in edges} | {b for _, b, _, _ in edges})
    order = _order(slots, edges)
    if order is None:
        return None
    pos = {s: k for k, s in enumerate(order)}
    nodes = []
    for s in order:
        tg = _temporal(temporal[s])
        assert tg is not None
        nodes.append(_Node(s, temporal[s], tg, [(pos[a], g) for a, b, g, _ in edges if b == s]))
    return nodes if _bounds(nodes) else None


def time_unit(leaves: Mapping[int, LeafGen], after: Mapping[str, str]) -> TimeUnit | None:
    temporal = {i: g for i, g in leaves.items() if _temporal(g) is not None}
    drawn = {g.node.path for g in temporal.values()}
    for path, target in after.items():
        for p in (path, target):
            if p not in drawn and any(g.node.path == p for g in leaves.values()):
                raise Unsatisfiable(
                    f"{path}: the 'after' rule cannot order '{p}', whose values come from an enum, a "
                    f"pattern, a uniqueness permutation or a 'not' (only freely drawn dates, date-times "
                    f"and times can be ordered)."
                )
    edges = _edges(temporal, after)
    explicit = [e for e in edges if e[3]]
    nodes = _build(temporal, edges) if edges else None
    if nodes is None and edges:
        # the names' pairs cannot all hold with these ranges: keep the rules' own pairs only
        nodes = _build(temporal, explicit) if explicit else None
        if nodes is None and explicit:
            a, b, _, _ = explicit[0]
            raise Unsatisfiable(
                f"{temporal[b].node.path}: no value can be after '{temporal[a].node.path}' within "
                f"both fields' ranges (the 'after' rule cannot hold)."
            )
    age = _age_link(leaves, nodes or [])
    if nodes is None and age is None:
        return None
    if age is not None and nodes is None:
        nodes = []
    assert nodes is not None
    if age is not None and age[2] == -1:
        birth_slot = age[3]
        tg = _temporal(leaves[birth_slot])
        assert tg is not None
        node = _Node(birth_slot, leaves[birth_slot], tg, earliest=tg.lo, latest=tg.hi)
        nodes.insert(0, node)
        for nd in nodes[1:]:
            nd.preds = [(p + 1, g) for p, g in nd.preds]
        age = (age[0], age[1], 0, birth_slot)
    link = None if age is None else (age[0], age[1], age[2])
    return TimeUnit(nodes, link, tuple(nd.slot for nd in nodes))


def _age_link(leaves: Mapping[int, LeafGen], nodes: list[_Node]) -> tuple[int, LeafGen, int, int] | None:
    """(age slot, its generator, birth node index or -1, birth slot) for an integer `age` beside a
    birth date, else None."""
    age = next(
        (
            (i, g)
            for i, g in leaves.items()
            if is_age_name(g.node.name)
            and not g.negations
            and (
                (isinstance(g.values_gen, NumberGenerator) and g.values_gen.integer) or g.choices is not None
            )
            and g.spec is not None
            and not g.spec.unique
        ),
        None,
    )
    if age is None:
        return None
    birth = next(
        (
            i
            for i, g in leaves.items()
            if _temporal(g) is not None
            and g.values_gen.kind is Kind.DATE
            and (role := time_role(g.node.name)) is not None
            and role.sequence == "employment"
            and role.rank == 0
            and role.qualifier == ""
        ),
        None,
    )
    if birth is None:
        return None
    index = next((k for k, nd in enumerate(nodes) if nd.slot == birth), -1)
    return age[0], age[1], index, birth
