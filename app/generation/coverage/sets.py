"""The coverage set: the fewest valid records found that meet every reachable target.

Targets are packed first-fit into records whose pins agree (pairwise: IPOG rows first); the
engine then draws the records with those pins (engine/pins.py) while every other value stays
random, and the records themselves are judged: each is checked by the schema's validator and every
target is looked for in them by its probe. A target whose record came out invalid or without it
is moved to a record of its own and tried again (with its alternatives); one that still fails is
reported unreachable with the reason. Deterministic for a seed, so every shard of a dataset
rebuilds the same set (once per worker process: app/core/jobs/plans.py keeps the plan). Measured
CPU per build: angular-component each 0.04-0.09 s, pairwise 0.6 s; the ncml XSD's each set (13
records: 30 while coverage records held at most 3 items of an unbounded repeat, 224 before targets
inside arrays were spread across items, items.py) 3.0-3.8 s against 1.7-2.1 s for the 30 in the
same paired runs on a loaded machine, which every worker process running a shard of such a
dataset pays once.
A request's build (creation, coverage plan, preview) runs in a probe process with a deadline;
every build is bounded by MAX_TARGETS and MAX_RECORDS."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from app.generation.coverage.items import ItemBudget, Placements
from app.generation.coverage.pairwise import ipog
from app.generation.coverage.targets import (
    AtLeast,
    PinKey,
    PinSet,
    Target,
    compatible,
    derive,
    merge,
    row_key,
)
from app.generation.engine.columns import Column
from app.generation.engine.generators import Gen
from app.generation.engine.pins import Pins
from app.generation.errors import CoverageTooLarge, ParamsError, Unsatisfiable
from app.generation.model import FieldTree

MODES = ("each", "pairwise")
_ROUNDS = 6
# the bounds of a set (every caller): each target is probed in every record of every round, so
# targets x records is the work; a request also gives its build a deadline (CoverageBuilder.build)
MAX_TARGETS = 50_000
MAX_RECORDS = 10_000


class _Clock:
    """A build's deadline and bounds: calling it past the deadline raises CoverageTooLarge."""

    def __init__(self, mode: str, seconds: float | None) -> None:
        self.mode, self.seconds = mode, seconds
        self.until = None if seconds is None else time.monotonic() + seconds

    def __call__(self) -> None:
        if self.until is not None and time.monotonic() > self.until:
            raise CoverageTooLarge(
                f"The {self.mode} coverage set of this schema was not built within {self.seconds:g} s, "
                "the limit of a request: it has too many targets or combinations. Use mode each, or "
                "narrow the schema with a constraint set (rules fixing values of some fields).",
                field="params.coverage",
            )

    def targets(self, count: int) -> None:
        if count > MAX_TARGETS:
            raise CoverageTooLarge(
                f"The {self.mode} coverage set of this schema has {count:,} targets, above the limit "
                f"of {MAX_TARGETS:,}. Use mode each, or narrow the schema with a constraint set.",
                field="params.coverage",
            )

    def records(self, count: int) -> None:
        if count > MAX_RECORDS:
            raise CoverageTooLarge(
                f"The {self.mode} coverage set of this schema needs more than {MAX_RECORDS:,} records, "
                "the limit. Use mode each, or narrow the schema with a constraint set.",
                field="params.coverage",
            )


@dataclass
class CoverageSet:
    mode: str
    size: int  # the coverage records: records [0, size) of the plan
    targets: list[Target] = field(default_factory=list)

    def report(self) -> dict[str, Any]:
        reachable = [t for t in self.targets if t.record is not None]
        return {
            "mode": self.mode,
            "records": self.size,
            "total": len(self.targets),
            "covered": len(reachable),
            "targets": [t.report() for t in self.targets],
        }


@dataclass
class _Factor:
    pointer: str
    levels: list[Target]


def factors_of(targets: Sequence[Target]) -> list[_Factor]:
    """Finite-domain fields outside arrays: enum/boolean values, a choice's branches, plus
    'absent' for an optional one (a level: the field's presence target with value false)."""
    by_key: dict[str, _Factor] = {}
    absent: dict[str, Target] = {}
    for t in targets:
        if t.factor is None or t.pins is None:
            continue
        if t.kind == "presence":
            if t.value is False:
                absent[t.pointer] = t
            continue
        by_key.setdefault(t.factor, _Factor(t.pointer, [])).levels.append(t)
    taken: set[str] = set()
    out: list[_Factor] = []
    for f in by_key.values():
        if len(f.levels) < 2 and f.pointer not in absent:
            continue
        if f.pointer in absent and f.pointer not in taken:
            f.levels.append(absent[f.pointer])
            taken.add(f.pointer)
        out.append(f)
    return out


def pair_targets(factors: Sequence[_Factor]) -> list[Target]:
    out: list[Target] = []
    for a in range(len(factors)):
        for b in range(a + 1, len(factors)):
            for ta in factors[a].levels:
                for tb in factors[b].levels:
                    pa, pb = ta.pins or {}, tb.pins or {}
                    value = [_level(ta), _level(tb)]
                    pointer = f"{factors[a].pointer} {factors[b].pointer}"
                    if not compatible(pa, pb):
                        out.append(
                            Target(
                                pointer,
                                "pair",
                                value,
                                None,
                                None,
                                reason="the two cannot occur in one record (they are in different "
                                "branches, or one needs the other's parent absent)",
                            )
                        )
                        continue
                    probe_a, probe_b = ta.probe, tb.probe
                    assert probe_a is not None and probe_b is not None

                    def probe(r: Any, pa: Any = probe_a, pb: Any = probe_b) -> bool:
                        return bool(pa(r) and pb(r))

                    both = dict(pa)
                    merge(both, pb)
                    out.append(Target(pointer, "pair", value, both, probe))
    return out


def _pair_count(factors: Sequence[_Factor]) -> int:
    sizes = [len(f.levels) for f in factors]
    total = sum(sizes)
    return (total * total - sum(x * x for x in sizes)) // 2


def _level(t: Target) -> Any:
    return "absent" if t.kind == "presence" else t.value


def _pack(
    records: list[PinSet], owners: list[list[Target]], t: Target, start: int = 0, budget: ItemBudget | None = None
) -> None:
    """Put `t` in the first record (from `start`) whose pins agree with its own, else a new one.
    `budget`: a target inside arrays may go to a later item of a record (items.Placements) while
    the record stays within the record budget."""
    assert t.pins is not None
    tries = Placements(t.pins, budget.gens) if budget is not None else [t.pins]
    for i in range(start, len(records)):
        for pins in tries:
            if compatible(records[i], pins) and (budget is None or budget.fits(records[i], pins)):
                t.pins = pins
                if budget is None:
                    merge(records[i], pins)
                else:
                    budget.merge(records[i], pins)
                owners[i].append(t)
                return
    records.append(dict(t.pins))
    owners.append([t])


class CoverageBuilder:
    """Builds the set over a compiled generator tree (its pins are set here: compile a tree of
    its own for coverage, not one another plan shares)."""

    def __init__(
        self,
        gen: Gen,
        tree: FieldTree,
        *,
        xsd: bool,
        validator: Any,
        make_plan: Any,  # record_count -> Plan drawing this tree with the run's params
        seed: int,
    ) -> None:
        self.gen, self.tree, self.xsd, self.validator = gen, tree, xsd, validator
        self.clock = _Clock("each", None)
        self.make_plan = make_plan
        self.derivation = derive(gen, tree, xsd=xsd, seed=seed)
        self.budget = ItemBudget(gen, self.derivation.gens)

    def build(self, mode: str, record_count: int, *, seconds: float | None = None) -> CoverageSet:
        """The set; `seconds`: the time it may take (None: no deadline). Past the deadline, or
        past MAX_TARGETS / MAX_RECORDS, CoverageTooLarge (422 coverage_too_large)."""
        if mode not in MODES:
            raise ParamsError(f"coverage must be one of {', '.join(MODES)}.", field="params.coverage")
        self.clock = _Clock(mode, seconds)
        targets = list(self.derivation.targets)
        self.clock.targets(len(targets))
        records: list[PinSet] = []
        owners: list[list[Target]] = []
        if mode == "pairwise":
            factors = factors_of(targets)
            self.clock.targets(len(targets) + _pair_count(factors))
            pairs = pair_targets(factors)
            targets.extend(pairs)
            sizes = [len(f.levels) for f in factors]

            def ok(a: int, la: int, b: int, lb: int) -> bool:
                pa, pb = factors[a].levels[la].pins, factors[b].levels[lb].pins
                return pa is not None and pb is not None and compatible(pa, pb)

            for row in ipog(sizes, ok, self.clock):
                pins: PinSet = {}
                mine: list[Target] = []
                for f, lv in enumerate(row):
                    if lv is not None:
                        t = factors[f].levels[lv]
                        assert t.pins is not None
                        merge(pins, t.pins)
                        mine.append(t)
                records.append(pins)
                owners.append(mine)
        # largest domains first: their values spread over the first records, the rest fill in
        # targets that shut a part of the record (absent, null, no items) go last: packed first,
        # they would leave no room for the targets inside that part
        singles = sorted(
            (t for t in targets if t.pins is not None and t.kind != "pair"), key=_closing
        )
        placed = {id(t) for o in owners for t in o}
        for t in singles:
            if id(t) not in placed:
                _pack(records, owners, t, budget=self.budget)
        pair_list = [t for t in targets if t.kind == "pair" and t.pins is not None]
        return self._settle(mode, targets, records, owners, pair_list, record_count)

    def _settle(
        self,
        mode: str,
        targets: list[Target],
        records: list[PinSet],
        owners: list[list[Target]],
        pairs: list[Target],
        record_count: int,
    ) -> CoverageSet:
        tries: dict[int, int] = {}
        reasons: dict[int, str] = {}
        for rnd in range(_ROUNDS + 1):
            records, owners = self._round(records, owners)
            recs, errors = self._draw(records, max(record_count, len(records)))
            valid = [e is None for e in errors]
            met = _first_meeting(targets, recs, valid, self.clock)
            misplaced: list[Target] = []
            for i, mine in enumerate(owners):
                for t in mine:
                    if met.get(id(t)) is None:
                        misplaced.append(t)
                        if errors[i] is not None:
                            reasons[id(t)] = f"forcing it made the record invalid: {errors[i]}"
                        else:
                            reasons[id(t)] = "the engine did not produce it even when forced"
            # pairs outside IPOG rows (pairwise) that no record met by chance
            owned = {id(t) for o in owners for t in o}
            for t in pairs:
                if met.get(id(t)) is None and id(t) not in owned:
                    misplaced.append(t)
            if not misplaced and all(valid):
                for t in targets:
                    t.record = met.get(id(t))
                    if t.record is None and t.pins is not None:
                        t.reason = reasons.get(id(t), "no record of the set meets it")
                return CoverageSet(mode, len(records), targets)
            last = rnd == _ROUNDS
            for i, ok in enumerate(valid):
                if not ok:
                    # an invalid record keeps none of its pins: its targets move out
                    for t in owners[i]:
                        if t not in misplaced:
                            misplaced.append(t)
                    records[i], owners[i] = {}, []
            for t in misplaced:
                for i, mine in enumerate(owners):
                    if t in mine:
                        mine.remove(t)
                        records[i] = _union(mine)
                tries[id(t)] = tries.get(id(t), 0) + 1
                n = tries[id(t)]
                if last:
                    continue
                if n - 1 < len(t.alternatives):
                    t.pins = t.alternatives[n - 1]
                elif n > 2:
                    continue  # given up: reported with the reason of its last try
                # on its own (a record of its own from the second try on)
                assert t.pins is not None
                if n >= 2:
                    records.append(dict(t.pins))
                    owners.append([t])
                else:
                    _pack(records, owners, t, start=len(records) - 1 if records else 0, budget=self.budget)
        # rounds exhausted: records left invalid are drawn without pins (the engine's own valid
        # records); their targets are reported unreachable with their reasons
        records, owners = _compact(records, owners)
        recs, errors = self._draw(records, max(record_count, len(records)))
        valid = [e is None for e in errors]
        met = _first_meeting(targets, recs, valid)
        for t in targets:
            t.record = met.get(id(t))
            if t.record is None:
                t.reason = t.reason or reasons.get(id(t), "no record of the set meets it")
        if not all(valid):
            raise ParamsError(
                "No valid coverage set was found: forcing the targets keeps making records invalid "
                f"({next(e for e in errors if e)})."
            )
        return CoverageSet(mode, len(records), targets)

    def _round(
        self, records: list[PinSet], owners: list[list[Target]]
    ) -> tuple[list[PinSet], list[list[Target]]]:
        """The records of the next round, within the deadline and the bound on records."""
        self.clock()
        records, owners = _compact(records, owners)
        self.clock.records(len(records))
        return records, owners

    # -- drawing ---------------------------------------------------------------------------

    def install(self, records: Sequence[PinSet]) -> None:
        """Set the generators' pins for records 0..len-1 (cleared everywhere else)."""
        gens = self.derivation.gens
        for g in gens.values():
            g.pins = None
        for r, pins in enumerate(records):
            for k, v in pins.items():
                g = gens[k.gen]
                if g.pins is None:
                    g.pins = Pins()
                _put(g.pins, k, row_key(r, k.address), v)

    def _draw(self, records: Sequence[PinSet], count: int) -> tuple[list[Any], list[str | None]]:
        """The records drawn with these pins and each one's validator error (None: valid). A
        record whose pins leave a re-draw loop no way out (a branch forced against an if/then/else)
        makes the engine give up on the whole block: such records are found one by one and
        drawn without their pins, their error the engine's reason."""
        try:
            return self._draw_all(records, count)
        except Unsatisfiable:
            pass
        failed: dict[int, str] = {}
        for i in range(len(records)):
            alone = [p if j == i else {} for j, p in enumerate(records)]
            try:
                self._draw_all(alone, count, validate=False)
            except Unsatisfiable as exc:
                failed[i] = str(exc)
        kept = [{} if i in failed or not failed else p for i, p in enumerate(records)]
        why = "forcing them together leaves the engine no valid record"
        recs, errors = self._draw_all(kept, count)
        return recs, [failed.get(i, why if not failed else e) for i, e in enumerate(errors)]

    def _draw_all(
        self, records: Sequence[PinSet], count: int, *, validate: bool = True
    ) -> tuple[list[Any], list[str | None]]:
        self.install(records)
        plan = self.make_plan(count)
        k = len(records)
        if k == 0:
            return [], []
        cols: list[Column] = []
        for _first, col in plan.chunks(0, k):
            cols.append(col)
        recs: list[Any] = []
        errors: list[str | None] = []
        for col in cols:
            recs.extend(orjson.loads(orjson.dumps(r)) for r in plan.gen.py(col))
            if validate and self.xsd:
                errors.extend(self._xml_errors(plan, col))
        if not validate or self.validator is None:
            return recs, [None] * len(recs)
        if not self.xsd:
            errors = [self.validator.json_error(r) for r in recs]
        return recs, errors

    def _xml_errors(self, plan: Any, col: Column) -> list[str | None]:
        if self.validator is None:
            return [None] * col.n
        from app.generation.writers.xml import XmlWriter

        texts = XmlWriter(plan.gen, xsd=True, root_name=plan.element_name).records(col)
        return [self.validator.xml_error(t) for t in texts]


def _closing(t: Target) -> int:
    if (t.kind == "presence" and t.value is False) or (t.kind == "null" and t.value is True):
        return 1
    if t.kind == "bound" and t.keyword in ("minItems", "minOccurs") and t.value == 0:
        return 1
    return 0


def _put(pins: Pins, k: PinKey, key: int, v: Any) -> None:
    if k.table == "present":
        pins.present.setdefault(key, {})[k.slot] = bool(v)
    elif isinstance(v, AtLeast):
        pins.min_lengths[key] = v.items
    else:
        getattr(pins, k.table)[key] = v


def _union(targets: Sequence[Target]) -> PinSet:
    out: PinSet = {}
    for t in targets:
        merge(out, t.pins or {})
    return out


def _compact(records: list[PinSet], owners: list[list[Target]]) -> tuple[list[PinSet], list[list[Target]]]:
    keep = [i for i, o in enumerate(owners) if o]
    return [records[i] for i in keep], [owners[i] for i in keep]


def _first_meeting(
    targets: Sequence[Target], recs: Sequence[Any], valid: Sequence[bool], clock: _Clock | None = None
) -> dict[int, int | None]:
    out: dict[int, int | None] = {}
    for n, t in enumerate(targets):
        if t.probe is None:
            continue
        if clock is not None and n % 256 == 0:
            clock()
        out[id(t)] = next((i for i, r in enumerate(recs) if valid[i] and t.probe(r)), None)
    return out
