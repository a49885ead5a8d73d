"""Checking negative records and their labels with the independent validators (shared by the
negative-data tests)."""

from __future__ import annotations

import datetime as dt
import io
import re
from typing import Any

import jsonschema
import orjson

from app.generation.negative.engine import attach_negative
from app.generation.negative.judge import judge_json
from app.generation.plan import compile_plan
from app.generation.rules import parse_rules


def json_validator(schema: dict[str, Any]) -> Any:
    """jsonschema for the schema's own draft, format checking on (the draft's checker)."""
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def steps(pointer: str) -> tuple[Any, ...]:
    """A label's pointer as jsonschema's error path (array positions as ints)."""
    out: list[Any] = []
    for raw in pointer.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        out.append(int(part) if part.isdigit() else part)
    return tuple(out)


def negative_json(
    loaded: Any, count: int, rate: float, seed: int = 5, fmt: str = "json", rules: Any = (), **kw: Any
) -> Any:
    """(records, labels, plan) of a run with `rate` invalid records (and constraint-set `rules`, raw)."""
    parsed = parse_rules(loaded.field_tree("#"), list(rules)) if rules else []
    plan = compile_plan(loaded, parsed, {"seed": seed}, record_count=count)
    attach_negative(plan, loaded, rate=rate, formats=(fmt,), rules=parsed, **kw)
    out, labels = io.BytesIO(), io.BytesIO()
    plan.write(fmt, out, labels=labels)
    if fmt == "json":
        records = orjson.loads(out.getvalue())
    else:
        records = [orjson.loads(line) for line in out.getvalue().splitlines()]
    return records, [orjson.loads(line) for line in labels.getvalue().splitlines()], plan


def check_json_labels(
    validator: Any,
    records: list[Any],
    labels: list[dict[str, Any]],
    skip: frozenset[int] | set[int] = frozenset(),
) -> None:
    """Every labelled record breaks its labelled constraint alone; every other record (but those
    in `skip`, checked elsewhere) is valid."""
    by_record = {label["record"]: label for label in labels}
    assert len(by_record) == len(labels), "one label per invalid record"
    for i, record in enumerate(records):
        label = by_record.get(i)
        if label is None and i in skip:
            continue
        errors = list(validator.iter_errors(record))
        if label is None:
            assert not errors, f"record {i} is unlabelled but invalid: {errors[0].message}"
            continue
        assert set(label) == {"record", "pointer", "keyword", "schema_pointer", "rule", "detail"}
        reason, _ = judge_json(errors, steps(label["pointer"]), label["keyword"])
        assert reason is None, f"record {i} {label}: {reason}"
        assert label["schema_pointer"].endswith("/" + label["keyword"])


def _rule_values(record: Any, path: str) -> list[tuple[str, Any]]:
    """(JSON Pointer, value) of every value a rule's dotted path names in a record (arrays: each item)."""
    found: list[tuple[str, Any]] = [("", record)]
    for name in path.split("."):
        step: list[tuple[str, Any]] = []
        for where, value in found:
            items = list(enumerate(value)) if isinstance(value, list) else [(None, value)]
            for i, item in items:
                at = where if i is None else f"{where}/{i}"
                if isinstance(item, dict) and name in item:
                    step.append((f"{at}/{name}", item[name]))
        found = step
    out: list[tuple[str, Any]] = []
    for where, value in found:
        if isinstance(value, list):
            out.extend((f"{where}/{i}", v) for i, v in enumerate(value))
        else:
            out.append((where, value))
    return out


def _order(value: Any) -> Any:
    """A rule bound or value as something to compare: numbers as they are, ISO texts as naive times."""
    if isinstance(value, str):
        for parse in (dt.datetime.fromisoformat, dt.date.fromisoformat, dt.time.fromisoformat):
            try:
                parsed: Any = parse(value.replace("Z", "+00:00"))
            except ValueError:
                continue
            return parsed.replace(tzinfo=None) if isinstance(parsed, dt.datetime | dt.time) else parsed
    return value


def rule_breaks(rule: dict[str, Any], value: Any) -> set[str]:
    """The keys of a constraint-set rule a field value breaks (independent of the engine's check)."""
    if value is None:
        return {"null_rate"} if rule.get("null_rate") == 0 else set()
    out = set()
    for key, within in (("min", lambda v, b: v >= b), ("max", lambda v, b: v <= b)):
        try:
            if key in rule and not within(_order(value), _order(rule[key])):
                out.add(key)
        except TypeError:  # not a value of the rule's kind: outside its range
            out.add(key)
    if "min_length" in rule and len(value) < rule["min_length"]:
        out.add("min_length")
    if "max_length" in rule and len(value) > rule["max_length"]:
        out.add("max_length")
    if "pattern" in rule and not re.fullmatch(rule["pattern"], value):
        out.add("pattern")
    if "enum" in rule and value not in rule["enum"]:
        out.add("enum")
    return out


def check_rule_labels(
    validator: Any, records: list[Any], labels: list[dict[str, Any]], rules: list[dict[str, Any]]
) -> None:
    """With constraint-set rules: a label naming a rule marks a record valid under the schema
    whose value at the pointer breaks that rule's key alone (a duplicate: equal to an earlier
    record's); every other rule holds in every record, whatever its label; the schema labels
    are judged as check_json_labels does."""
    check_json_labels(
        validator, records, [x for x in labels if x["rule"] is None], skip={x["record"] for x in labels}
    )
    by_record = {x["record"]: x for x in labels}
    for i, record in enumerate(records):
        label = by_record.get(i)
        if label is not None and label["rule"] is not None:
            assert not list(validator.iter_errors(record)), f"record {i} {label}: the schema is broken too"
        for r, rule in enumerate(rules):
            for where, value in _rule_values(record, rule["path"]):
                broken = rule_breaks(rule, value)
                if label is not None and label["rule"] == r and label["pointer"] == where:
                    if label["keyword"] == "unique":
                        assert not broken
                        earlier = {
                            orjson.dumps(v) for rec in records[:i] for _, v in _rule_values(rec, rule["path"])
                        }
                        assert orjson.dumps(value) in earlier, f"record {i} {label}: no earlier record has it"
                    else:
                        assert broken == {label["keyword"]}, f"record {i} {label}: breaks {broken}"
                else:
                    assert not broken, f"record {i} {label}: {where} breaks rule {r} {broken} unlabelled"
