"""Problems known before generation (app/generation/problems.py): every impossible path named with
the engine's own reason, blocking only when every record needs the field; optional content the
engine leaves out listed as not blocking; huge records are not compiled at upload."""

from __future__ import annotations

import json

from app.generation import problems
from app.generation.problems import blocking_problems, root_problems
from app.generation.schema.loader import load_schema

XS = 'xmlns:xs="http://www.w3.org/2001/XMLSchema"'


def _json(schema: dict) -> object:
    return load_schema(json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}).encode())


def test_every_impossible_path_is_named() -> None:
    loaded = _json({
        "type": "object",
        "required": ["n", "e", "items"],
        "properties": {
            "n": {"type": "integer", "minimum": 10, "maximum": 5},
            "e": {"type": "string", "enum": ["a", "b"], "minLength": 3},
            "items": {"type": "array", "minItems": 1, "items": {
                "type": "object", "required": ["m"], "properties": {"m": {"type": "integer", "minimum": 3, "maximum": 1}}}},
            "maybe": {"type": "array", "items": {"type": "integer", "minimum": 3, "maximum": 1}},
            "fine": {"type": "string"},
        },
    })
    found = {p["path"]: p for p in root_problems(loaded)}
    assert found["n"] == {"path": "n", "reason": "no integer lies between 10 and 5", "blocking": True}
    assert found["e"]["blocking"] and "enum" in found["e"]["reason"]
    assert found["items.m"]["blocking"] and found["items.m"]["reason"] == "no integer lies between 3 and 1"
    assert found["maybe"]["blocking"] is False  # an array that may be empty needs no item
    assert "fine" not in found
    assert {p["path"] for p in blocking_problems(loaded)} == {"n", "e", "items.m"}


def test_generatable_root_lists_left_out_optional_content() -> None:
    xsd = (f'<xs:schema {XS}><xs:element name="r"><xs:complexType><xs:sequence>'
           '<xs:element name="a" type="xs:string"/>'
           '<xs:element name="ext" minOccurs="0"><xs:complexType><xs:sequence><xs:any namespace="urn:none" processContents="strict"/>'
           "</xs:sequence></xs:complexType></xs:element></xs:sequence></xs:complexType></xs:element></xs:schema>")
    loaded = load_schema(xsd.encode(), "r.xsd")
    assert blocking_problems(loaded) == []
    assert root_problems(loaded) == [
        {"path": "ext", "reason": "required xs:any wildcard content cannot be generated", "blocking": False}
    ]


def test_huge_records_are_not_compiled_at_upload(monkeypatch: object) -> None:
    loaded = _json({"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(30)}})
    monkeypatch.setattr(problems, "MAX_CHECKED_NODES", 10)  # type: ignore[attr-defined]
    (only,) = root_problems(loaded)
    assert only["blocking"] is False and "not checked before generation" in only["reason"]
