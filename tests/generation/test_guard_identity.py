"""The XSD guard's fast path for identity constraints on one attribute (app/generation/guard.py)
gives exactly xmlschema's verdicts: duplicates, missing key fields and dangling keyrefs are
still reported, with the same messages as the stock FieldValueSelector.get_value."""

from __future__ import annotations

import pytest
from xmlschema.validators.identities import FieldValueSelector

from app.generation.schema.loader import load_schema

XSD = b"""<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:t="urn:t" targetNamespace="urn:t"
           elementFormDefault="qualified">
  <xs:complexType name="Node">
    <xs:sequence>
      <xs:element name="node" type="t:Node" minOccurs="0" maxOccurs="unbounded"/>
      <xs:element name="link" minOccurs="0" maxOccurs="unbounded">
        <xs:complexType><xs:attribute name="to" type="xs:int"/></xs:complexType>
      </xs:element>
    </xs:sequence>
    <xs:attribute name="ref" type="xs:string"/>
    <xs:attribute name="num" type="xs:int"/>
    <xs:attribute name="tag" type="xs:string" default="none"/>
  </xs:complexType>
  <xs:element name="doc">
    <xs:complexType>
      <xs:sequence><xs:element name="node" type="t:Node" maxOccurs="unbounded"/></xs:sequence>
    </xs:complexType>
    <xs:unique name="anyRef"><xs:selector xpath=".//*"/><xs:field xpath="@ref"/></xs:unique>
    <xs:key name="num"><xs:selector xpath="t:node"/><xs:field xpath="@num"/></xs:key>
    <xs:keyref name="links" refer="t:num"><xs:selector xpath=".//t:link"/><xs:field xpath="@to"/></xs:keyref>
    <xs:unique name="tags"><xs:selector xpath="t:node"/><xs:field xpath="attribute::tag"/></xs:unique>
  </xs:element>
</xs:schema>"""

DOCS = {
    "valid": '<node ref="a" num="1" tag="x"><node ref="b"><link to="2"/></node></node><node num="2" tag="y"/>',
    "duplicate ref deep": '<node ref="a" num="1" tag="x"><node><node ref="a"/></node></node>',
    "refs differ as strings": '<node num="1" tag="x" ref="07"/><node num="2" ref=" 07" tag="y"/>',
    "key missing": '<node ref="a" tag="x"><node ref="b"/></node>',
    "key duplicate as int": '<node num="1" tag="x"/><node num="01" tag="y"/>',
    "keyref dangling": '<node num="1" tag="x"><link to="3"/></node>',
    "defaults collide": '<node num="1"/><node num="2"/>',
    "key not an int": '<node num="one" tag="x"/>',
}


def _errors(validator: object, body: str) -> list[str]:
    text = f'<doc xmlns="urn:t">{body}</doc>'
    return [err for _i, err in validator.xml_errors([text])]  # type: ignore[attr-defined]


@pytest.fixture
def validator() -> object:
    return load_schema(XSD, "ids.xsd").record_validator("doc")


def _stock_verdicts(validator: object) -> dict[str, list[str]]:
    fast = FieldValueSelector.get_value
    stock = getattr(fast, "_tdg_stock", None)
    assert stock is not None, "the guard installs its fast path when an XSD validator is built"
    FieldValueSelector.get_value = stock
    try:
        return {name: _errors(validator, body) for name, body in DOCS.items()}
    finally:
        FieldValueSelector.get_value = fast


def test_fast_path_gives_xmlschemas_verdicts(validator: object) -> None:
    fast = {name: _errors(validator, body) for name, body in DOCS.items()}
    stock = _stock_verdicts(validator)
    assert fast == stock
    assert fast["valid"] == []
    for name in DOCS:
        assert bool(fast[name]) is (name not in ("valid", "refs differ as strings")), name
    assert "duplicated value" in fast["duplicate ref deep"][0]
    assert "missing key field" in fast["key missing"][0]
