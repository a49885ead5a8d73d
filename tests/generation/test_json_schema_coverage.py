"""Real-world JSON Schema shapes that used to fail generation (issue 18, classes 1-6 and the extra
keywords): each schema's records are judged by jsonschema with the draft's format checker, and the
regex cases also by jsonschema-rs, so a dialect difference between validators shows."""

from __future__ import annotations

import re
from typing import Any

import jsonschema_rs

from tests.generation.validated import DRAFT, validated_records


def _both(schema: dict[str, Any], n: int = 200) -> list[Any]:
    records = validated_records(schema, n)
    rs = jsonschema_rs.validator_for({"$schema": DRAFT, **schema})
    for rec in records:
        assert rs.is_valid(rec), rec
    return records


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
