"""Breaking one JSON Schema constraint of a record, checked by jsonschema."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import Any

import orjson

from app.generation.engine.columns import Column
from app.generation.negative.constraints import Constraint
from app.generation.negative.instance import Path, get, locations, pointer, put
from app.generation.negative.json_constraints import json_constraints
from app.generation.negative.json_subtree import subtree_validator
from app.generation.negative.json_values import candidates
from app.generation.negative.judge import APPLICATORS, judge_json
from app.generation.negative.rule_breaks import RuleChecks, describe

MAX_CANDIDATES = 80  # values tried per location before the constraint is given up for the record
MAX_PLACES = 3  # locations tried per constraint and record (a template may match many items)


def dotted(path: Path) -> str:
    out = ""
    for p in path:
        out = out + f"[{p}]" if isinstance(p, int) else (f"{out}.{p}" if out else str(p))
    return out or "the record"


_RS_DRAFTS = {
    "draft-04": "Draft4Validator",
    "draft-06": "Draft6Validator",
    "draft-07": "Draft7Validator",
    "2019-09": "Draft201909Validator",
    "2020-12": "Draft202012Validator",
}


def fast_class(document: Any) -> Any:
    """The jsonschema-rs validator class of the document's draft, None when it has none."""
    import jsonschema_rs

    return getattr(jsonschema_rs, _RS_DRAFTS.get(document.version, ""), None)


def fast_validator(document: Any) -> Any:
    """jsonschema-rs for the whole document (its draft, formats checked): a first, fast look at
    each candidate, so the slow, authoritative jsonschema check runs about once per record.
    None when it cannot take the schema (the candidates then go to jsonschema alone)."""
    import jsonschema_rs

    cls = getattr(jsonschema_rs, _RS_DRAFTS.get(document.version, ""), None)
    if cls is None:
        return None
    try:
        return cls(document.contents, validate_formats=True)
    except Exception:  # e.g. a pattern its regex engine refuses
        return None


# keywords the two validators may name differently for the same break (no item matching
# `contains` with minContains 1: jsonschema says `contains`, jsonschema-rs `minContains`)
_NAMED_APART = frozenset({"contains", "minContains", "maxContains"})
UNSURE = "\x00unsure"  # fast_alone: an applicator failed too; jsonschema decides whether because of it


def fast_alone(fast: Any, record: Any, path: Path, keyword: str) -> str | None:
    """jsonschema-rs's view of the rule in judge.py: the message of the error of `keyword` at
    `path` when it is the only one; UNSURE when applicators at or above it fail as well (whether
    because of it is for jsonschema to say); None when another error shows."""
    found = None
    unsure = False
    target = list(path)
    for error in fast.iter_errors(record):
        at = list(error.instance_path)
        kw = next((str(p) for p in reversed(error.schema_path) if isinstance(p, str)), "")
        if at == target and (kw == keyword or (keyword == "propertyNames" and keyword in error.schema_path)):
            found = found or str(error.message)
        elif kw in APPLICATORS and at == target[: len(at)]:
            unsure = True
        else:
            return None
    if found and (unsure or keyword in _NAMED_APART):
        return UNSURE
    return found


def _lexical(schema: Any, value: Any, keyword: str) -> bool:
    """Whether the two validators might read this break apart: a string under a pattern or a
    format (Python's `re` and jsonschema's format checks against jsonschema-rs's own)."""
    if keyword in ("pattern", "format"):
        return True
    return isinstance(value, str) and isinstance(schema, dict) and ("pattern" in schema or "format" in schema)


class JsonBreaker:
    """The breakable constraints of one JSON Schema record root and how to break each."""

    kind = "json"

    def __init__(self, document: Any, root: str, gen: Any, rules: RuleChecks | None = None) -> None:
        self.gen = gen
        self.rules = rules
        # the output records a duplicate may copy (a unique rule's break), before record `index`
        self.peers: Callable[[int], Iterable[Any]] = lambda index: ()
        contents, resolver = document.root_schema(root)
        schema: Any = document.contents if root == "#" else {"$ref": f"{document.base_uri}#/{root}"}
        checker = document.validator_cls.FORMAT_CHECKER
        self.validator = document.validator_cls(schema, registry=document.registry, format_checker=checker)
        root_pointer = "" if root == "#" else "/" + root
        formats = frozenset(checker.checkers)
        self.constraints = json_constraints(
            contents, resolver, document.base_uri, document.version, formats, root_pointer
        )
        if rules is not None:
            self.constraints += rules.constraints()
        self._subs: dict[int, Any] = {}
        self.fast = fast_validator(document) if root == "#" else None
        # per constraint: jsonschema-rs for the location's value alone, where that is enough
        self._fast_class: Any = fast_class(document) if self.fast is not None else None
        self._contents: Any = document.contents
        self._subtrees: dict[int, Any] = {}

    def records(self, col: Column) -> list[Any]:
        """The generated records of `col` as plain JSON data (what the validator reads)."""
        return [orjson.loads(orjson.dumps(v)) for v in self.gen.py(col)]

    def _subtree(self, c: Constraint) -> Any:
        if id(c) not in self._subtrees:
            self._subtrees[id(c)] = subtree_validator(self._fast_class, self._contents, c)
        return self._subtrees[id(c)]

    def _sub(self, c: Constraint) -> Any:
        sub = self._subs.get(id(c))
        if sub is None:
            sub = self.validator.evolve(schema=c.schema, _resolver=c.resolver)
            self._subs[id(c)] = sub
        return sub

    def attempt(
        self, c: Constraint, record: Any, rng: random.Random, *, confirm: bool = True, index: int = 0
    ) -> tuple[Any, str, str] | None:
        """(the record breaking `c` alone, its pointer, a sentence) or None when this record
        cannot break `c` (the location is absent, or every candidate breaks something else).
        `confirm=False` (the build's probe): jsonschema-rs's word is enough, when it has one.
        `index`: the record's place in the output (a duplicate copies an earlier record's value)."""
        paths = locations(record, c.template)
        if not paths:
            return None
        if c.rule is not None:
            return self._attempt_rule(c, record, rng, paths, confirm, index)
        sub = self._sub(c)
        contains = c.schema.get("contains") if isinstance(c.schema, dict) else None

        def matches(v: Any) -> bool:
            return not any(True for _ in sub.descend(v, contains)) if contains is not None else False

        picks = rng.sample(range(len(paths)), min(MAX_PLACES, len(paths))) if len(paths) > 1 else [0]
        for k in picks:
            path = paths[k]
            value = get(record, path)
            for tried, cand in enumerate(candidates(c.keyword, c.schema, value, matches)):
                if tried >= MAX_CANDIDATES:
                    break
                try:
                    broken = put(record, path, cand)
                    if self.fast is not None:
                        # jsonschema-rs judges the whole record (or the location's value alone
                        # where that tells the same: json_subtree.py); jsonschema the string at
                        # the location too where the two could read a pattern or format apart
                        sub_fast = self._subtree(c)
                        if sub_fast is not None:
                            message = fast_alone(sub_fast, cand, (), c.keyword)
                        else:
                            message = fast_alone(self.fast, broken, path, c.keyword)
                        if message is None:
                            continue
                        if message == UNSURE:
                            reason, error = judge_json(self.validator.iter_errors(broken), path, c.keyword)
                        elif not confirm or not _lexical(c.schema, cand, c.keyword):
                            if self.rules is not None and not self.rules.hold(c, broken, path):
                                continue
                            return broken, pointer(path), f"{dotted(path)}: {message}"[:300]
                        else:
                            reason, error = judge_json(sub.iter_errors(cand), (), c.keyword)
                    else:
                        reason, _ = judge_json(sub.iter_errors(cand), (), c.keyword)
                        if reason is not None:
                            continue
                        reason, error = judge_json(self.validator.iter_errors(broken), path, c.keyword)
                except Exception:  # a candidate the validator cannot judge is not used
                    continue
                if reason is None and (self.rules is None or self.rules.hold(c, broken, path)):
                    return broken, pointer(path), f"{dotted(path)}: {error.message}"[:300]
        return None

    def _attempt_rule(
        self, c: Constraint, record: Any, rng: random.Random, paths: list[Path], confirm: bool, index: int
    ) -> tuple[Any, str, str] | None:
        """Break constraint-set rule c.rule's key c.keyword at one of `paths`: the record stays
        valid under the schema (jsonschema-rs, then jsonschema) and the field's other rules hold."""
        assert self.rules is not None
        picks = rng.sample(range(len(paths)), min(MAX_PLACES, len(paths))) if len(paths) > 1 else [0]
        for k in picks:
            path = paths[k]
            value = get(record, path)
            peers = self.peers(index) if c.keyword == "unique" else ()
            for tried, cand in enumerate(self.rules.candidates(c, value, peers, path)):
                if tried >= MAX_CANDIDATES:
                    break
                if not self.rules.keeps_others(c, cand) or (c.keyword == "unique" and cand is None):
                    continue
                broken = put(record, path, cand)
                try:
                    if self.fast is not None and not self.fast.is_valid(broken):
                        continue
                    if (confirm or self.fast is None) and not self.validator.is_valid(broken):
                        continue
                except Exception:  # a candidate the validator cannot judge is not used
                    continue
                detail = describe(c.keyword, c.extra["rule"], cand)
                return broken, pointer(path), f"{dotted(path)}: {detail}"[:300]
        return None

    def text(self, fmt: str, broken: Any) -> str:
        if fmt in ("json", "ndjson"):
            return orjson.dumps(broken).decode()
        raise ValueError(fmt)
