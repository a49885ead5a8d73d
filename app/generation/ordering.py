"""Time pairs that must be ordered within one record: the names inference reads (created before
updated, start before end, birth before hire) and the check of the explicit `after` rule key.
Design notes: docs/generation.md (records that agree with themselves)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.generation.errors import RuleError
from app.generation.model import FieldTree, Kind, Node

TEMPORAL_KINDS = (Kind.DATE, Kind.DATETIME, Kind.TIME)
# the smallest age at hiring: a hire date lies at least this many years after the birth date
HIRE_AGE_YEARS = 16

# sequences of name stems, earliest first: within one object, fields of one sequence (and one
# qualifier, `trial_start` / `trial_end`) are ordered by their rank
SEQUENCES: dict[str, list[frozenset[str]]] = {
    "lifecycle": [
        frozenset({"created", "creation", "inserted", "registered", "signup", "signed_up", "opened"}),
        frozenset({"updated", "modified", "changed", "edited", "last_modified", "last_updated"}),
        frozenset({"deleted", "removed", "archived", "closed"}),
    ],
    "employment": [
        frozenset({"birth", "born", "dob", "birthday", "birthdate", "of_birth"}),
        frozenset({"hire", "hired", "hiring", "joined", "joining", "employment_start", "onboarded"}),
        frozenset({"termination", "terminated", "left", "leaving", "exit", "employment_end", "offboarded"}),
    ],
    "period": [
        frozenset(
            {
                "start",
                "starts",
                "started",
                "begin",
                "begins",
                "from",
                "valid_from",
                "effective",
                "effective_from",
                "check_in",
                "departure",
                "departs",
                "opening",
                "issue",
                "issued",
            }
        ),
        frozenset(
            {
                "end",
                "ends",
                "ended",
                "finish",
                "finished",
                "until",
                "to",
                "valid_to",
                "valid_until",
                "valid_through",
                "effective_to",
                "expiry",
                "expires",
                "expiration",
                "check_out",
                "arrival",
                "arrives",
                "closing",
                "due",
            }
        ),
    ],
    "order": [
        frozenset({"ordered", "order", "placed", "purchased"}),
        frozenset({"shipped", "dispatched"}),
        frozenset({"delivered", "received"}),
    ],
}
_STEM_RANK: dict[str, tuple[str, int]] = {
    stem: (seq, rank)
    for seq, ranks in SEQUENCES.items()
    for rank, stems in enumerate(ranks)
    for stem in stems
}
# what a time field's name may carry around its stem: `created_at`, `date_of_birth`, `start_time`
_SUFFIX = re.compile(r"_(at|on|date|time|datetime|timestamp|ts|dt|day)$")
_PREFIX = re.compile(r"^(date|time|datetime|timestamp|ts|dt|day)_")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@dataclass(frozen=True)
class TimeRole:
    sequence: str
    rank: int
    qualifier: str  # what else the name says (`trial` in trial_start): pairs share it


def _snake(name: str) -> str:
    return _CAMEL.sub("_", name.lstrip("@$")).replace("-", "_").replace(" ", "_").lower()


def time_role(name: str) -> TimeRole | None:
    """The ordering role a time field's name gives it, or None: `created_at` -> lifecycle 0,
    `contract_end_date` -> period 1 with qualifier `contract`."""
    key = _snake(name)
    for _ in range(2):
        key = _PREFIX.sub("", _SUFFIX.sub("", key))
    if key in _STEM_RANK:
        seq, rank = _STEM_RANK[key]
        return TimeRole(seq, rank, "")
    parts = key.split("_")
    # a qualifier before or after the stem: `trial_start`, `start_trial`, `date_of_birth`
    for cut in range(1, len(parts)):
        head, tail = "_".join(parts[:cut]), "_".join(parts[cut:])
        if tail in _STEM_RANK:
            seq, rank = _STEM_RANK[tail]
            return TimeRole(seq, rank, "" if head in ("date", "of") else head)
        if head in _STEM_RANK:
            seq, rank = _STEM_RANK[head]
            return TimeRole(seq, rank, tail)
    return None


def is_age_name(name: str) -> bool:
    return _snake(name) in ("age", "age_years", "age_in_years", "current_age")


def parent_path(path: str) -> str:
    return path.rsplit(".", 1)[0] if "." in path else ""


def _value_kind(tree: FieldTree, node: Node) -> Kind:
    for _ in range(32):
        if node.kind is Kind.REF and node.ref in tree.definitions:
            node = tree.definitions[node.ref]
        else:
            break
    if node.kind is Kind.STRING and node.format in ("date", "date-time", "time"):
        return {"date": Kind.DATE, "date-time": Kind.DATETIME, "time": Kind.TIME}[node.format]
    return node.kind


def check_after(tree: FieldTree, node: Node, path: str, target: object) -> None:
    """The `after` rule key: `{"path": "end_date", "after": "start_date"}` orders two sibling time
    fields of one object (the field later than the target in every record)."""

    def fail(why: str) -> RuleError:
        return RuleError(f"Rule for '{path}': {why}.", key="after", rule_path=path)

    if not isinstance(target, str) or not target:
        raise fail("'after' must be the path of another field")
    if target == path:
        raise fail("'after' names the field itself")
    other = tree.find(target)
    if other is None:
        raise fail(f"'after' names '{target[:80]}', but no field has this path in the schema")
    if parent_path(target) != parent_path(path):
        raise fail(f"'after' must name a field of the same object, and '{target[:80]}' is not")
    kind, other_kind = _value_kind(tree, node), _value_kind(tree, other)
    if kind not in TEMPORAL_KINDS:
        raise fail(f"'after' applies to date, date-time and time fields, not to a {kind.value} field")
    if other_kind is not kind:
        raise fail(
            f"'after' compares fields of one type, but this is a {kind.value} and "
            f"'{target[:80]}' a {other_kind.value}"
        )


def check_after_cycles(pairs: list[tuple[str, str]]) -> None:
    """`after` rules that go round in a circle (a after b, b after a) can never all hold."""
    later: dict[str, list[str]] = {}
    for path, target in pairs:
        later.setdefault(target, []).append(path)
    state: dict[str, int] = {}

    def visit(p: str) -> None:
        state[p] = 1
        for q in later.get(p, []):
            if state.get(q) == 1:
                raise RuleError(
                    f"Rule for '{q}': its 'after' rules form a cycle, so no record can meet them.",
                    key="after",
                    rule_path=q,
                )
            if q not in state:
                visit(q)
        state[p] = 2

    for start in list(later):
        if start not in state:
            visit(start)
