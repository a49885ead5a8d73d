"""Constraint-set rules of an XSD as breakable constraints (issue 30): a rule's range, pattern,
values, zero null rate (on a nillable element) and uniqueness, each asked for alone at invalid
rate 1. Every record is validated by xmlschema (the XSD loaded by xmlschema itself, each record a
document of its own) and its rules checked by negative_checks.rule_breaks on the value read at the
label's pointer, written apart from the engine's check."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
import xmlschema

from app.generation.errors import ParamsError
from app.generation.negative.engine import attach_negative
from app.generation.plan import compile_plan
from app.generation.rules import parse_rules
from app.generation.schema.loader import load_schema
from tests.generation.negative_checks import rule_breaks

XSD = b"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t"
  xmlns="urn:t" elementFormDefault="qualified">
 <xs:element name="policy"><xs:complexType><xs:sequence>
  <xs:element name="holder" maxOccurs="3"><xs:complexType><xs:sequence>
   <xs:element name="name" type="xs:string"/>
   <xs:element name="age"><xs:simpleType><xs:restriction base="xs:int">
    <xs:minInclusive value="0"/><xs:maxInclusive value="120"/></xs:restriction></xs:simpleType></xs:element>
  </xs:sequence></xs:complexType></xs:element>
  <xs:element name="premium"><xs:simpleType><xs:restriction base="xs:decimal">
   <xs:fractionDigits value="2"/><xs:minInclusive value="0"/><xs:maxInclusive value="100000"/>
  </xs:restriction></xs:simpleType></xs:element>
  <xs:element name="ref" type="xs:string"/>
  <xs:element name="note" type="xs:string" nillable="true"/>
  <xs:element name="tier"><xs:simpleType><xs:restriction base="xs:string">
   <xs:enumeration value="gold"/><xs:enumeration value="silver"/></xs:restriction></xs:simpleType></xs:element>
 </xs:sequence>
 <xs:attribute name="channel" use="required"><xs:simpleType><xs:restriction base="xs:string">
  <xs:enumeration value="web"/><xs:enumeration value="phone"/><xs:enumeration value="mail"/>
 </xs:restriction></xs:simpleType></xs:attribute>
 </xs:complexType></xs:element></xs:schema>"""
RULES: list[dict[str, Any]] = [
    {"path": "premium", "min": 10, "max": 5000},
    {"path": "ref", "pattern": "R-[0-9]{4}", "unique": True},
    {"path": "@channel", "enum": ["web", "phone"]},
    {"path": "note", "null_rate": 0},
    {"path": "holder.age", "min": 18, "max": 99},
    {"path": "tier", "enum": ["gold"]},  # the XSD already allows only gold or silver: silver breaks it
]
KEYS = ["min", "max", "pattern", "enum", "unique", "null_rate"]
REFERENCE = xmlschema.XMLSchema10(XSD.decode())


def run(count: int, rate: float, keywords: list[str] | None, seed: int = 3) -> tuple[list[ET.Element], list[dict[str, Any]]]:
    loaded = load_schema(XSD, "policy.xsd")
    rules = parse_rules(loaded.field_tree("policy"), RULES)
    plan = compile_plan(loaded, rules, {"seed": seed, "root": "policy"}, record_count=count)
    attach_negative(plan, loaded, rate=rate, keywords=keywords, formats=("xml",), rules=rules)
    out, labels = io.BytesIO(), io.BytesIO()
    plan.write("xml", out, labels=labels)
    return list(ET.fromstring(out.getvalue())), [json.loads(line) for line in labels.getvalue().splitlines()]


def value_at(record: ET.Element, pointer: str) -> Any:
    """The text (None: xsi:nil) at an xmlschema location path of local names with positions."""
    steps = pointer.strip("/").split("/")
    assert steps[0] == record.tag.rsplit("}", 1)[-1]
    el = record
    for step in steps[1:]:
        if step.startswith("@"):
            return el.get(step[1:])
        name, _, pos = step.partition("[")
        same = [c for c in el if c.tag.rsplit("}", 1)[-1] == name]
        el = same[int(pos.rstrip("]")) - 1 if pos else 0]
    if el.get("{http://www.w3.org/2001/XMLSchema-instance}nil") == "true":
        return None
    return el.text or ""


def typed(path: str, text: Any) -> Any:
    return text if text is None or path in ("ref", "@channel", "note", "tier") else float(text)


def values(record: ET.Element, path: str) -> list[Any]:
    steps = path.split(".")
    if steps[-1].startswith("@"):
        return [record.get(steps[-1][1:])]
    pointers = ["/policy"]
    for step in steps:
        pointers = [
            f"{p}/{step}[{k + 1}]" if step == "holder" else f"{p}/{step}"
            for p in pointers
            for k in range(len(record.findall(f"{{urn:t}}{step}")) if step == "holder" else 1)
        ]
    return [typed(path, value_at(record, p)) for p in pointers]


def check(records: list[ET.Element], labels: list[dict[str, Any]]) -> None:
    """Every record XSD-valid; a labelled one breaks its rule's key alone at the pointer (a
    unique one repeats another record's value), every other rule holds everywhere."""
    by_record = {x["record"]: x for x in labels}
    refs = [values(r, "ref")[0] for r in records]
    # the refs of the records that are no duplicate: all different
    own = [ref for i, ref in enumerate(refs) if by_record.get(i, {}).get("keyword") != "unique"]
    assert len(set(own)) == len(own)
    for i, record in enumerate(records):
        assert not list(REFERENCE.iter_errors(record)), (i, by_record.get(i))
        label = by_record.get(i)
        broken: set[tuple[int, str]] = set()
        for k, rule in enumerate(RULES):
            for v in values(record, rule["path"]):
                broken |= {(k, key) for key in rule_breaks(rule, v)}
        if label is None:
            assert not broken, (i, broken)
            continue
        assert set(label) == {"record", "pointer", "keyword", "schema_pointer", "rule", "detail"}
        rule = RULES[label["rule"]]
        assert label["keyword"] in rule and label["schema_pointer"] == "/policy/" + rule["path"].replace(".", "/")
        if label["keyword"] == "unique":
            assert not broken and refs[i] in refs[:i] and label["pointer"] == "/policy/ref"
            continue
        at = typed(rule["path"], value_at(record, label["pointer"]))
        assert rule_breaks(rule, at) == {label["keyword"]}, (label, at)
        assert broken == {(label["rule"], label["keyword"])}, (label, broken)


@pytest.mark.parametrize("keyword", KEYS)
def test_each_rule_key_is_broken_alone(keyword: str) -> None:
    # record 0 has no earlier record to repeat: a unique break needs it valid (rate 0.5, this seed)
    rate = 0.5 if keyword == "unique" else 1.0
    records, labels = run(24, rate, [keyword])
    assert len(labels) == round(24 * rate) and {x["keyword"] for x in labels} == {keyword}
    assert all(x["rule"] is not None for x in labels)  # the XSD's enumerations are not `enum`
    check(records, labels)
    if keyword == "enum":  # the attribute's and tier's: tier's facet still leaves silver
        assert {x["rule"] for x in labels} == {2, 5}
    if keyword == "min":
        assert {x["rule"] for x in labels} == {0, 4}
        assert any(re.fullmatch(r"/policy/holder\[\d\]/age", x["pointer"]) for x in labels)


def test_mixed_run_keeps_every_rule_elsewhere() -> None:
    """Rate 0.2 over the rule keys (the XSD's own breaks are test_negative_xsd's): exactly 40
    labels, spread over the rules, the other 160 records valid with every rule kept."""
    records, labels = run(200, 0.2, KEYS, seed=9)
    assert len(labels) == 40 and all(x["rule"] is not None for x in labels)
    check(records, labels)
    assert len({(x["rule"], x["keyword"]) for x in labels}) >= 7


def test_a_rule_the_xsd_leaves_no_room_to_break_is_not_offered() -> None:
    """A null_rate of 0 on an element that is not nillable, a rule enum wider than the facet's."""
    loaded = load_schema(XSD, "policy.xsd")
    rules = parse_rules(
        loaded.field_tree("policy"), [{"path": "ref", "null_rate": 0}, {"path": "tier", "enum": ["gold", "silver"]}]
    )
    plan = compile_plan(loaded, rules, {"seed": 1, "root": "policy"}, record_count=10)
    with pytest.raises(ParamsError, match="null_rate"):
        attach_negative(plan, loaded, rate=1.0, keywords=["null_rate"], formats=("xml",), rules=rules)
    with pytest.raises(ParamsError, match="enum"):
        attach_negative(plan, loaded, rate=1.0, keywords=["enum"], formats=("xml",), rules=rules)
