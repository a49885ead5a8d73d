"""Real-world JSON Schema shapes that used to fail generation (issue 18, classes 1-6 and the extra
keywords): each schema's records are judged by jsonschema with the draft's format checker, and the
regex cases also by jsonschema-rs, so a dialect difference between validators shows."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import jsonschema_rs
import pytest

from app.generation.errors import GenerationError
from app.generation.model import FieldTree
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from tests.generation.validated import DRAFT, validated_records


def _both(schema: dict[str, Any], n: int = 200) -> list[Any]:
    records = validated_records(schema, n)
    rs = jsonschema_rs.validator_for({"$schema": DRAFT, **schema})
    for rec in records:
        assert rs.is_valid(rec), rec
    return records


def _drafted(schema: dict[str, Any], n: int = 300) -> list[Any]:
    """Records of a schema that names its own draft, judged by that draft's validator and formats."""
    loaded = load_schema(json.dumps(schema).encode(), "s.json")
    plan = compile_plan(loaded, [], {"seed": 3}, record_count=n, use_schema_validator=False)
    records = json.loads(json.dumps(plan.records()))
    cls = jsonschema.validators.validator_for(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    for rec in records:
        errors = list(validator.iter_errors(rec))
        assert not errors, (rec, errors[0].message)
    return records


def _tree(schema: dict[str, Any]) -> FieldTree:
    return load_schema(json.dumps({"$schema": DRAFT, **schema}).encode(), "s.json").field_tree()


def _field(prop: dict[str, Any], name: str = "value") -> dict[str, Any]:
    return {"type": "object", "required": [name], "properties": {name: prop}}


# -- 3. regex dialects ---------------------------------------------------------------------------


def test_whitespace_pattern_draws_what_every_dialect_calls_whitespace() -> None:
    # a "blank separator" field: ECMA's \s holds U+FEFF, Python's re (jsonschema) does not
    records = _both(_field({"type": "string", "pattern": r"^\s+$"}), n=400)
    assert all(re.fullmatch(r"\s+", r["value"]) for r in records)
    assert any(r["value"] != r["value"].strip(" ") for r in records)


def test_negated_shorthands_stay_inside_every_dialect() -> None:
    schema = _field({"type": "string", "pattern": r"^\S+ \D\W[^\s]$"})
    _both(schema)


def test_password_lookaheads_are_drawn_and_checked() -> None:
    # the usual password rule: one capital and one digit somewhere, at least 8 characters
    schema = _field({"type": "string", "pattern": r"^(?=.*[A-Z])(?=.*\d).{8,64}$"}, "password")
    records = _both(schema)
    assert len({r["password"] for r in records}) > 150


def test_negative_lookahead_and_lookbehind_are_checked() -> None:
    schema = {
        "type": "object",
        "required": ["slug", "name"],
        "properties": {
            "slug": {"type": "string", "pattern": "^(?!-)[a-z0-9-]{3,20}(?<!-)$"},
            "name": {"type": "string", "pattern": "^(?!(?:CON|PRN|AUX|NUL)$)[A-Z]{3}$"},
        },
    }
    records = _both(schema)
    assert all(not r["slug"].startswith("-") and not r["slug"].endswith("-") for r in records)


# -- 1. unsatisfiable branches and optional properties are dropped, with the reason -----------------


def test_anyof_branch_that_no_value_meets_is_dropped() -> None:
    # a settings file: "auto" or a boolean, where the first branch wrongly wraps the const in a list
    prop = {"anyOf": [{"const": ["auto"], "type": "string"}, {"type": "boolean"}]}
    records = _both(_field(prop, "color"))
    assert {type(r["color"]) for r in records} == {bool}
    node = _tree(_field(prop, "color")).find("color")
    assert node is not None and any("anyOf option 1 is dropped" in u for u in node.unsupported)


def test_optional_property_that_no_value_meets_is_left_out() -> None:
    schema = {
        "type": "object",
        "required": ["name"],
        "properties": {"name": {"type": "string"}, "retries": {"type": "string", "enum": [1, 2, 3]}},
    }
    records = _both(schema)
    assert all("retries" not in r for r in records)
    assert any("optional property 'retries' is left out" in u for u in _tree(schema).root.unsupported)


def test_required_property_that_no_value_meets_fails_naming_it() -> None:
    schema = {
        "type": "object",
        "required": ["retries"],
        "properties": {"retries": {"type": "string", "enum": [1]}},
    }
    with pytest.raises(GenerationError, match="retries: no enum/const value has an allowed type"):
        _both(schema, n=5)


# -- 2. enum and type agree ------------------------------------------------------------------------


def test_enum_beside_a_nullable_type_draws_only_enum_values() -> None:
    schema = _field({"enum": ["explicit", "node"], "type": ["string", "null"]}, "resolution")
    records = _both(schema, n=400)
    assert {r["resolution"] for r in records} == {"explicit", "node"}


def test_null_comes_from_the_enum_only_when_the_type_allows_it() -> None:
    schema = _field({"enum": ["a", None, 3], "type": ["string", "null"]}, "mode")
    values = {r["mode"] for r in _both(schema, n=400)}
    assert values == {"a", None}


# -- 4. not / if-then-else / contains --------------------------------------------------------------


def test_not_type_builds_the_remaining_types() -> None:
    schema = _field({"not": {"type": ["object", "array", "string"]}}, "scalar")
    kinds = {type(r["scalar"]).__name__ for r in _both(schema, n=300)}
    assert "str" not in kinds and kinds & {"int", "float", "bool"}


def test_else_branch_is_built_by_missing_the_if_on_purpose() -> None:
    # a connection: tcp needs a port, anything else must not have one
    schema = {
        "type": "object",
        "properties": {"mode": {"type": "string"}, "port": {"type": "integer"}},
        "if": {"properties": {"mode": {"const": "tcp"}}, "required": ["mode"]},
        "then": {"required": ["port"]},
        "else": {"required": ["mode"], "properties": {"port": False}},
    }
    records = _both(schema)
    assert all("port" not in r for r in records if r["mode"] != "tcp")


def test_contains_with_min_and_max_contains_is_built() -> None:
    schema = _field(
        {
            "type": "array",
            "items": {"type": "integer", "minimum": 0, "maximum": 100},
            "contains": {"minimum": 50},
            "minContains": 2,
            "maxContains": 3,
        },
        "scores",
    )
    records = _both(schema)
    assert all(2 <= sum(x >= 50 for x in r["scores"]) <= 3 for r in records)


# -- 5. compositions keep every required property --------------------------------------------------


def test_recursive_allof_item_keeps_the_properties_its_reference_requires() -> None:
    # a document outline: every section (also nested ones) has an id and a title
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$ref": "#/definitions/section",
        "definitions": {
            "base": {
                "type": "object",
                "required": ["id", "title"],
                "properties": {
                    "id": {"type": "string", "pattern": "^[a-z]{3}$"},
                    "title": {"type": "string"},
                },
            },
            "section": {
                "allOf": [
                    {"$ref": "#/definitions/base"},
                    {
                        "properties": {
                            "children": {
                                "type": "array",
                                "items": {
                                    "allOf": [
                                        {"$ref": "#/definitions/section"},
                                        {"required": ["level"], "properties": {"level": {"type": "integer"}}},
                                    ]
                                },
                            }
                        }
                    },
                ]
            },
        },
    }
    records = _drafted(schema)
    assert any(r.get("children") for r in records)


def test_additional_properties_false_of_one_allof_member_forbids_the_others_properties() -> None:
    step = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "run": {"type": "string"}},
        "additionalProperties": False,
    }
    schema = {
        "type": "object",
        "required": ["steps"],
        "$defs": {"step": step},
        "properties": {
            "steps": {
                "type": "array",
                "minItems": 1,
                "items": {"allOf": [{"$ref": "#/$defs/step"}, {"properties": {"shell": {"type": "string"}}}]},
            }
        },
    }
    records = _both(schema)
    assert all("shell" not in s for r in records for s in r["steps"])
    schema["properties"]["steps"]["items"]["allOf"][1]["required"] = ["shell"]
    with pytest.raises(GenerationError, match="'shell' is required, but 'additionalProperties: false'"):
        _both(schema, n=5)


# -- 6. oneOf whose branches differ by enum --------------------------------------------------------


def test_draft4_oneof_told_apart_by_enum_tags() -> None:
    item = {
        "oneOf": [
            {
                "type": "object",
                "properties": {
                    "action": {"enum": ["run", "exec"]},
                    "command": {"type": "string"},
                    "timeout": {"type": "integer"},
                },
            },
            {
                "type": "object",
                "properties": {
                    "action": {"enum": ["copy"]},
                    "src": {"type": "string"},
                    "dest": {"type": "string"},
                },
            },
            {"type": "object", "properties": {"action": {"enum": ["wait"]}, "seconds": {"type": "integer"}}},
        ]
    }
    schema = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "required": ["steps"],
        "properties": {"steps": {"type": "array", "minItems": 3, "maxItems": 8, "items": item}},
    }
    records = _drafted(schema)
    assert {s["action"] for r in records for s in r["steps"]} == {"run", "exec", "copy", "wait"}


def test_draft4_oneof_of_overlapping_enums_draws_values_in_one_only() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "required": ["level"],
        "properties": {
            "level": {
                "oneOf": [{"enum": ["debug", "info", "warn", "error"]}, {"enum": ["warn", "error", "fatal"]}]
            }
        },
    }
    assert {r["level"] for r in _drafted(schema)} == {"debug", "info", "fatal"}


# -- the other keywords ----------------------------------------------------------------------------


def test_pattern_properties_also_constrain_declared_properties() -> None:
    # labels: every lower-case key (declared ones included) holds at most 5 characters
    schema = {
        "type": "object",
        "required": ["name", "tag"],
        "minProperties": 4,
        "properties": {"name": {"type": "string"}, "tag": {"type": "string"}},
        "patternProperties": {"^[a-z]+$": {"type": "string", "maxLength": 5}},
    }
    records = _both(schema)
    assert all(len(r) >= 4 and len(r["name"]) <= 5 for r in records)


def test_property_names_leave_out_declared_properties_they_refuse() -> None:
    schema = {
        "type": "object",
        "properties": {"Name": {"type": "string"}, "age": {"type": "integer"}},
        "propertyNames": {"pattern": "^[a-z]+$"},
    }
    records = _both(schema)
    assert all("Name" not in r for r in records) and any("age" in r for r in records)
    assert any("'Name' is left out" in u for u in _tree(schema).root.unsupported)


def test_unevaluated_items_decide_the_items_past_the_prefix() -> None:
    schema = _field(
        {
            "type": "array",
            "prefixItems": [{"type": "string"}],
            "unevaluatedItems": {"type": "boolean"},
            "minItems": 3,
        },
        "row",
    )
    records = _both(schema)
    assert all(
        isinstance(r["row"][0], str) and all(isinstance(x, bool) for x in r["row"][1:]) for r in records
    )
    closed = _field(
        {
            "type": "array",
            "prefixItems": [{"type": "string"}, {"type": "integer"}],
            "unevaluatedItems": False,
        },
        "pair",
    )
    assert all(len(r["pair"]) <= 2 for r in _both(closed))


def test_dynamic_ref_tree_and_dependent_schemas() -> None:
    schema = {
        "$id": "https://example.com/tree",
        "$dynamicAnchor": "node",
        "type": "object",
        "required": ["data"],
        "properties": {
            "data": {"type": "string"},
            "card": {"type": "string"},
            "billing": {"type": "string"},
            "children": {"type": "array", "items": {"$dynamicRef": "#node"}},
        },
        "dependentSchemas": {"card": {"required": ["billing"]}},
    }
    records = _both(schema)
    assert any(r.get("children") for r in records) and any("card" in r for r in records)


def test_if_then_else_on_a_value_holds() -> None:
    # distances: metric units need two letters, anything else must be feet; big counts are round
    schema = {
        "type": "object",
        "required": ["unit", "count"],
        "properties": {
            "unit": {
                "enum": ["m", "km", "mi", "ft"],
                "if": {"enum": ["m", "km"]},
                "then": {"minLength": 2},
                "else": {"const": "ft"},
            },
            "count": {
                "type": "integer",
                "minimum": 0,
                "maximum": 100,
                "if": {"minimum": 50},
                "then": {"multipleOf": 10},
            },
        },
    }
    records = _both(schema)
    assert {r["unit"] for r in records} == {"km", "ft"}
    assert all(r["count"] < 50 or r["count"] % 10 == 0 for r in records)


def test_optional_property_and_anyof_option_with_impossible_facets_are_left_out() -> None:
    schema = {
        "type": "object",
        "required": ["id"],
        "properties": {
            "id": {"anyOf": [{"type": "string", "pattern": "^(a)\\1$"}, {"type": "integer"}]},
            "note": {"type": "string", "minLength": 10, "maxLength": 5},
        },
    }
    records = _both(schema)
    assert all(isinstance(r["id"], int) and "note" not in r for r in records)
