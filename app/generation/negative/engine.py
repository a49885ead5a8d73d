"""`Negative`: what a Plan asks for each invalid record (which constraint, the broken record's
text per format, the label), and what it checks once when it is built."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from app.generation.engine.columns import Column, take
from app.generation.errors import ParamsError, Unsatisfiable
from app.generation.negative.constraints import Constraint, Label
from app.generation.negative.selection import Selection

if TYPE_CHECKING:
    from app.generation.plan import Plan

PROBE_RECORDS = 16  # records each constraint is tried on when the plan is built
MAX_TRIES = 24  # constraints one record tries before a probe record is broken in its place
# formats that carry every violation of each schema kind; csv and sql carry none yet (a fixed
# header cannot hold an extra property, a typed column cannot hold a type break)
CARRIERS = {"json": ("json", "ndjson"), "xsd": ("xml",)}


class Breaker(Protocol):
    kind: str
    constraints: list[Constraint]

    def records(self, col: Column) -> list[Any]: ...
    def attempt(
        self, c: Constraint, record: Any, rng: random.Random, *, confirm: bool = True
    ) -> tuple[Any, str, str] | None: ...
    def text(self, fmt: str, broken: Any) -> str: ...


class Negative:
    """The invalid records of one plan: `rows` says which, `broken` makes one."""

    def __init__(
        self,
        breaker: Breaker,
        offered: list[Constraint],
        selection: Selection,
        spares: list[tuple[Any, Constraint]],
        probe: Sequence[Any] = (),
    ) -> None:
        self.breaker = breaker
        self.offered = offered
        self.selection = selection
        # (probe record, a constraint it breaks alone): what a record that can break none of
        # the constraints (its optional parts absent, another branch taken) is made from instead
        self.spares = spares
        self.probe = probe  # the first records of the output, valid (what a duplicate copies)
        self._outputs: dict[int, Any] = {}
        # the negative suite (rate 1 with coverage each): record i breaks offered[i % n], so the
        # first n records break each offered constraint once (app/generation/coverage/suite.py)
        self.suite = False
        # the suite's judged break of offered[k] on a probe record (`confirm_spares`)
        self.judged: list[tuple[Any, str, str]] = []

    def confirm_spares(self) -> None:
        """Keep the constraints a probe record is judged to break alone, each with that break: the
        build's probe only saw that a change exists, which is not always a break of that
        constraint alone (ncml's xs:float attributes, before the judge read xmlschema's built-in
        float pattern as the type). Record i of the suite then breaks offered[i] on itself, else
        is that judged break: no record of the suite is left unbroken."""
        rng = random.Random(self.selection.seed)
        offered: list[Constraint] = []
        spares: list[tuple[Any, Constraint]] = []
        judged: list[tuple[Any, str, str]] = []
        for c in self.offered:
            for base in self.probe:
                got = self.breaker.attempt(c, base, rng)
                if got is not None:
                    offered.append(c)
                    spares.append((base, c))
                    judged.append(got)
                    break
        if not offered:
            raise ParamsError(
                "The schema has no constraint a record can break alone (nothing to make invalid).",
                field="params.invalid_rate",
            )
        self.offered, self.spares, self.judged = offered, spares, judged

    def peers(self, index: int) -> Iterator[Any]:
        """The output records before `index` among the first len(probe), nearest first: the
        valid ones as generated, the invalid ones as broken."""
        for k in range(min(index, len(self.probe)) - 1, -1, -1):
            if k not in self._outputs:
                valid = not self.selection.rows(k, k + 1).size
                self._outputs[k] = self.probe[k] if valid else self.broken(k, self.probe[k])[0]
            yield self._outputs[k]

    @property
    def count(self) -> int:
        return self.selection.count

    def rows(self, start: int, stop: int) -> np.ndarray:
        return self.selection.rows(start, stop)

    def broken(self, index: int, record: Any) -> tuple[Any, Label]:
        """Record `index` (its generated, valid form `record`, from `Breaker.records`) broken at one constraint: the
        constraint is drawn uniformly from the offered ones; when this record cannot break it
        (its location absent here), others are tried in a seeded order, up to MAX_TRIES; then
        a probe record known to break one is broken in its place (the count stays exact)."""
        rng = self.selection.rng(index)
        if self.suite and self.judged:
            k = index % len(self.offered)
            c = self.offered[k]
            broken, where, detail = self.breaker.attempt(c, record, rng) or self.judged[k]
            return broken, Label(index, where, c.keyword, c.schema_pointer, c.rule, detail)
        for base, c in self._suite_tries(index, record) if self.suite else self._tries(record, rng):
            # a rule's break is told where the record goes (a duplicate copies an earlier one)
            extra: dict[str, Any] = {"index": index} if c.rule is not None else {}
            got = self.breaker.attempt(c, base, rng, **extra)
            if got is not None:
                broken, where, detail = got
                return broken, Label(index, where, c.keyword, c.schema_pointer, c.rule, detail)
        raise Unsatisfiable(f"Record {index} cannot break any of the schema's constraints alone.")

    def _suite_tries(self, index: int, record: Any) -> Iterator[tuple[Any, Constraint]]:
        """Record `index` of the suite breaks its own constraint: on itself, else on the probe
        record known to break it alone (spares are in the order of `offered`)."""
        k = index % len(self.offered)
        yield record, self.offered[k]
        yield self.spares[k]

    def _tries(self, record: Any, rng: random.Random) -> Iterator[tuple[Any, Constraint]]:
        n = len(self.offered)
        first = rng.randrange(n)
        yield record, self.offered[first]
        others = [x for x in rng.sample(range(n), min(n, MAX_TRIES)) if x != first]
        for ci in others:
            yield record, self.offered[ci]
        spare = rng.randrange(len(self.spares))
        yield from self.spares[spare:] + self.spares[:spare]


def check_formats(kind: str, formats: Sequence[str]) -> None:
    carriers = CARRIERS[kind]
    other = [f for f in formats if f not in carriers]
    if other:
        raise ParamsError(
            f"params.invalid_rate is not available for the {', '.join(other)} format: invalid "
            f"records of this schema are written as {' or '.join(carriers)}.",
            field="types",
        )


def build_negative(
    breaker: Breaker,
    probe: Column | None,
    *,
    rate: Any,
    keywords: Sequence[str] | None,
    record_count: int,
    seed: int,
) -> Negative:
    """The plan's Negative: the constraints that break alone on at least one probe record
    (a constraint that cannot be broken without breaking another is never offered), narrowed to
    `keywords`; ParamsError when none is left or a keyword names none."""
    if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0 <= rate <= 1:
        raise ParamsError("params.invalid_rate must be a number between 0 and 1.", field="params.invalid_rate")
    wanted = set(keywords) if keywords else None
    candidates = [c for c in breaker.constraints if wanted is None or c.keyword in wanted]
    records = breaker.records(probe) if probe is not None else []
    rng = random.Random(seed)
    offered: list[Constraint] = []
    spares: list[tuple[Any, Constraint]] = []
    if hasattr(breaker, "peers"):  # a duplicate, while probing, copies an earlier probe record
        breaker.peers = lambda index: reversed(records[:index])
    for c in candidates:
        extra: dict[str, Any] = {"index": len(records)} if c.rule is not None else {}
        base = next(
            (r for r in records if breaker.attempt(c, r, rng, confirm=False, **extra) is not None), None
        )
        if base is not None:
            offered.append(c)
            spares.append((base, c))
    if wanted is not None:
        missing = sorted(wanted - {c.keyword for c in offered})
        if missing:
            raise ParamsError(
                f"The schema has no breakable constraint for the keyword(s) {', '.join(missing)}.",
                field="params.invalid_keywords",
            )
    if not offered:
        raise ParamsError(
            "The schema has no constraint a record can break alone (nothing to make invalid).",
            field="params.invalid_rate",
        )
    negative = Negative(breaker, offered, Selection(record_count, float(rate), seed), spares, records)
    if hasattr(breaker, "peers"):
        breaker.peers = negative.peers
    return negative


def attach_negative(
    plan: Plan,
    source: Any,
    *,
    rate: Any,
    keywords: Sequence[str] | None = None,
    formats: Sequence[str] = ("json",),
    rules: Sequence[Any] = (),
) -> Negative | None:
    """Make `rate` of `plan`'s records invalid (plan.negative), for a LoadedSchema `source`;
    None (and nothing changed) at rate 0. `rules`: the plan's constraint-set rules (breakable
    too; a schema constraint's break must keep them)."""
    if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0 <= rate <= 1:
        raise ParamsError("params.invalid_rate must be a number between 0 and 1.", field="params.invalid_rate")
    if rate == 0:
        return None
    root = source.resolve_root(plan.params.root)
    probe = None
    if plan.record_count:
        n = min(plan.record_count, PROBE_RECORDS)
        probe = take(plan.block(0), np.arange(n))
    breaker: Breaker
    if source.type == "xsd":
        from app.generation.negative.xsd_breaker import XsdBreaker

        check_formats("xsd", formats)
        from app.generation.negative.xsd_record import split
        from app.generation.negative.xsd_rules import XsdRules

        element = source.document.element(root)
        xsd_rules = XsdRules(plan.tree, rules, split(element.name)[1]) if rules else None
        xsd = XsdBreaker(element, plan.gen, plan.element_name, xsd_rules)
        xsd.donors = xsd.records(probe) if probe is not None else []  # where a choice's second branch comes from
        breaker = xsd
    else:
        from app.generation.negative.json_breaker import JsonBreaker
        from app.generation.negative.rule_breaks import RuleChecks

        breaker = JsonBreaker(source.document, root, plan.gen, RuleChecks(plan.tree, rules) if rules else None)
        check_formats("json", formats)
    negative = build_negative(
        breaker, probe, rate=rate, keywords=keywords, record_count=plan.record_count, seed=plan.params.seed
    )
    plan.negative = negative
    return negative
