"""The keys of a constraint-set rule: what each takes, as data. One definition read three ways:
rules.py checks a rule's values against it (the shape; the field-dependent checks follow there),
the service lists it at GET /constraints/rule-keys, and the OpenAPI document's rule schema is
`rule_json_schema()`. Imports nothing heavy: the server reads it at start-up."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

DISTRIBUTIONS = ("uniform", "normal", "lognormal", "skewed")
# values real data holds once per dataset: these categories, xs:ID, and string/integer fields
# whose name (without a category read from it) matches UNIQUE_NAMES (engine/uniqueness.py)
UNIQUE_CATEGORIES = frozenset({"email", "username", "uuid"})
UNIQUE_NAME_WORDS = (
    "id",
    "uuid",
    "guid",
    "key",
    "code",
    "serial",
    "serial_number",
    "serialnumber",
    "*_key",
    "token",
    "*_token",
)  # `*` any start; names are compared in snake_case
UNIQUE_NAMES = re.compile("^(" + "|".join(w.replace("*", ".*") for w in UNIQUE_NAME_WORDS) + ")$")

# field types as GET /schemas/{id}/repr and GET /constraints/categories name them (model.Kind)
_BOUNDED = ("integer", "number", "date", "datetime", "time")
_SCALARS = ("string", "integer", "number", "boolean", "date", "datetime", "time")


@dataclass(frozen=True)
class RuleKey:
    """One rule key: the JSON Schema of its value (type, enum, minimum/maximum, minLength,
    minItems; only these keywords), what it does, and the field types it applies to (all when
    empty)."""

    name: str
    schema: dict[str, Any]
    description: str
    applies_to: tuple[str, ...] = ()
    required: bool = False
    must: str = ""  # what a value must be, in words, when the schema's own words would say less


RULE_KEY_TABLE: tuple[RuleKey, ...] = (
    RuleKey(
        "path",
        {"type": "string", "minLength": 1},
        "The field, e.g. customer.age (dots between names; an array's items by the array's name)",
        required=True,
    ),
    RuleKey(
        "category",
        {"type": "string"},
        "A value category by name: one of GET "
        "/constraints/categories, fitting the field's type. It replaces the category inferred from "
        "the field's name (`inferred_category` in GET /schemas/{id}/repr)",
    ),
    RuleKey(
        "pattern", {"type": "string"}, "A regular expression every value matches", applies_to=("string",)
    ),
    RuleKey(
        "min",
        {"type": ["number", "string"]},
        "The smallest value, inclusive: a number, or an ISO "
        "date, date-time or time string for those fields; within the schema's own range",
        applies_to=_BOUNDED,
        must="a number, or an ISO date, date-time or time string",
    ),
    RuleKey(
        "max",
        {"type": ["number", "string"]},
        "The largest value, inclusive; as for min",
        applies_to=_BOUNDED,
        must="a number, or an ISO date, date-time or time string",
    ),
    RuleKey("min_length", {"type": "integer", "minimum": 0}, "The shortest string", applies_to=("string",)),
    RuleKey("max_length", {"type": "integer", "minimum": 0}, "The longest string", applies_to=("string",)),
    RuleKey(
        "enum",
        {"type": "array", "minItems": 1},
        "The values to draw from, each within the schema's facets",
        applies_to=_SCALARS,
    ),
    RuleKey(
        "null_rate",
        {"type": "number", "minimum": 0, "maximum": 1},
        "The share of records where "
        "the field is null or left out (not on a required field that is not nullable)",
    ),
    RuleKey(
        "unique",
        {"type": "boolean"},
        "Each value at most once per dataset (across shards and "
        "files). Default: true for xs:ID values, for the categories "
        f"{', '.join(sorted(UNIQUE_CATEGORIES))} and for string or integer fields without a category "
        f"named {', '.join(UNIQUE_NAME_WORDS)}, unless the rule gives a distribution or edge_rate; "
        "false turns it off",
    ),
    RuleKey(
        "distribution",
        {"type": "string", "enum": list(DISTRIBUTIONS)},
        "How values spread over "
        "the allowed range (default uniform over the whole range): normal and lognormal for "
        "integers and numbers (normal needs mean and sd), skewed (Zipf-like) for integers, numbers "
        "and enum values, uniform also for dates and times",
        applies_to=_SCALARS,
    ),
    RuleKey(
        "mean",
        {"type": "number"},
        "The mean of a normal or lognormal distribution, within the allowed range",
        applies_to=("integer", "number"),
    ),
    RuleKey(
        "sd",
        {"type": "number", "exclusiveMinimum": 0},
        "The standard deviation of a normal or lognormal distribution",
        applies_to=("integer", "number"),
    ),
    RuleKey(
        "edge_rate",
        {"type": "number", "minimum": 0, "maximum": 1},
        "The share of values drawn "
        "from the field's edge cases: min, max, min+step, max-step, the empty string where allowed, "
        "the longest string, the first and last enum value, a leap day, 23:59:59",
        applies_to=_SCALARS,
    ),
    RuleKey(
        "after",
        {"type": "string", "minLength": 1},
        "The path of a sibling date, date-time or time "
        "field of the same type this one is later than in every record (e.g. end_date after "
        "start_date)",
        applies_to=("date", "datetime", "time"),
        must="the path of another field",
    ),
)
RULE_KEY_NAMES = tuple(k.name for k in RULE_KEY_TABLE)
RULE_KEYS = frozenset(RULE_KEY_NAMES)
_BY_NAME = {k.name: k for k in RULE_KEY_TABLE}
_TYPE_WORDS = {
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "true or false",
    "array": "a list",
}


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool) and math.isfinite(value)


def _has_type(value: Any, name: str) -> bool:
    if name == "number":
        return _is_number(value)
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "array":
        return isinstance(value, list)
    return isinstance(value, str)


def _requirement(schema: dict[str, Any]) -> str:
    """'must be ...' as a phrase, from the key's schema."""
    if "enum" in schema:
        return "one of " + ", ".join(schema["enum"])
    types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    text = " or ".join(_TYPE_WORDS[t] for t in types)
    if schema.get("minimum") == 0 and "maximum" not in schema:
        text = text.replace("an integer", "a non-negative integer")
    elif "minimum" in schema and "maximum" in schema:
        text += f" from {schema['minimum']} to {schema['maximum']}"
    elif "exclusiveMinimum" in schema:
        text += f" greater than {schema['exclusiveMinimum']}"
    if schema.get("minItems") == 1:
        text = "a non-empty list"
    elif schema.get("minLength") == 1:
        text = "a non-empty string"
    return text


def value_problem(key: str, value: Any) -> str | None:
    """Why `value` does not fit rule key `key`'s schema, as a clause ("'sd' must be ..."), or None."""
    spec = _BY_NAME[key]
    schema = spec.schema
    types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    fits = any(_has_type(value, t) for t in types)
    if fits and "enum" in schema:
        fits = value in schema["enum"]
    if fits and _is_number(value):
        fits = schema.get("minimum", -math.inf) <= value <= schema.get("maximum", math.inf)
        fits = fits and value > schema.get("exclusiveMinimum", -math.inf)
    if fits and isinstance(value, list | str):
        fits = len(value) >= schema.get("minItems", schema.get("minLength", 0))
    return None if fits else f"'{key}' must be {spec.must or _requirement(schema)}"


def describe_rule_keys() -> list[dict[str, Any]]:
    """Every rule key as GET /constraints/rule-keys lists it."""
    return [
        {
            "name": k.name,
            "description": k.description,
            "required": k.required,
            "types": list(k.applies_to),
            "schema": dict(k.schema),
        }
        for k in RULE_KEY_TABLE
    ]


def rule_json_schema() -> dict[str, Any]:
    """The JSON Schema of one rule object (the OpenAPI document's rule)."""
    return {
        "type": "object",
        "required": [k.name for k in RULE_KEY_TABLE if k.required],
        "additionalProperties": False,
        "properties": {
            k.name: {**k.schema, "description": k.description + _applies(k)} for k in RULE_KEY_TABLE
        },
    }


def _applies(key: RuleKey) -> str:
    return f" (fields of type {', '.join(key.applies_to)})" if key.applies_to else ""
