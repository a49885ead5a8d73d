"""XML output of an XSD with the constructs the writer must get right: a target namespace,
attributes, simple content with attributes, xs:choice, repeated elements, nillable elements,
list types, fixed values; every record validated with xmlschema. Plus the JSON Schema mapping."""

from __future__ import annotations

import io

import orjson
import xmlschema

from app.generation.plan import Plan, compile_plan
from app.generation.schema.loader import load_schema

XSD = b"""<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns="urn:shop" targetNamespace="urn:shop"
           elementFormDefault="qualified">
  <xs:simpleType name="Codes"><xs:list itemType="xs:NCName"/></xs:simpleType>
  <xs:complexType name="Price">
    <xs:simpleContent>
      <xs:extension base="xs:decimal"><xs:attribute name="currency" type="xs:string" fixed="EUR"/></xs:extension>
    </xs:simpleContent>
  </xs:complexType>
  <xs:element name="order">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="title" type="xs:string"/>
        <xs:choice>
          <xs:element name="email" type="xs:string"/>
          <xs:element name="phone"><xs:simpleType><xs:restriction base="xs:string">
            <xs:pattern value="\\+[0-9]{8,12}"/></xs:restriction></xs:simpleType></xs:element>
        </xs:choice>
        <xs:element name="price" type="Price"/>
        <xs:element name="note" type="xs:string" nillable="true"/>
        <xs:element name="codes" type="Codes" minOccurs="0"/>
        <xs:element name="line" maxOccurs="3">
          <xs:complexType>
            <xs:sequence><xs:element name="sku" type="xs:token"/></xs:sequence>
            <xs:attribute name="qty" type="xs:positiveInteger" use="required"/>
          </xs:complexType>
        </xs:element>
      </xs:sequence>
      <xs:attribute name="id" type="xs:ID" use="required"/>
      <xs:attribute name="created" type="xs:dateTime"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
"""


def _write(plan: Plan, fmt: str) -> str:
    buf = io.BytesIO()
    plan.write(fmt, buf)
    return buf.getvalue().decode()


def test_xsd_constructs_validate_record_by_record() -> None:
    loaded = load_schema(XSD, "shop.xsd")
    plan = compile_plan(loaded, [], {"seed": 3, "null_rate": 0.3}, record_count=300)
    text = _write(plan, "xml")
    records = text.splitlines()[2:-1]
    assert len(records) == 300
    schema = xmlschema.XMLSchema10(XSD.decode())
    for r in records:
        schema.validate(r)
    assert all(r.startswith('<order xmlns="urn:shop"') for r in records)
    assert any('xsi:nil="true"' in r for r in records)
    assert any("<email>" in r for r in records) and any("<phone>" in r for r in records)
    assert all('currency="EUR"' in r or "currency=" not in r for r in records)
    # JSON follows xmlschema's converter: attributes "@x", simple content "$", repeats as lists
    first = orjson.loads(_write(plan, "json"))[0]
    assert set(first) >= {"@id", "title", "price", "line"}
    assert "$" in first["price"] and isinstance(first["line"], list) and "@qty" in first["line"][0]


def test_json_schema_generic_xml_mapping() -> None:
    schema = {"type": "object", "required": ["a b", "tags", "n"], "properties": {
        "a b": {"type": "string", "maxLength": 5}, "tags": {"type": "array", "minItems": 2, "maxItems": 2,
                                                          "items": {"type": "string", "enum": ["<&>"]}},
        "n": {"type": ["integer", "null"]}}}
    loaded = load_schema(orjson.dumps(schema), "s.json")
    plan = compile_plan(loaded, [], {"seed": 1, "null_rate": 0.5}, record_count=50)
    text = _write(plan, "xml")
    assert "<tags><item>&lt;&amp;&gt;</item><item>&lt;&amp;&gt;</item></tags>" in text
    assert "<a_b>" in text and 'xsi:nil="true"' in text
    root = xmlschema.XMLResource(text)  # well-formed
    assert root.root.tag == "records" and len(list(root.root)) == 50


BUILTINS = b"""<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="row">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="year" type="xs:gYear"/>
        <xs:element name="month" type="xs:gYearMonth"/>
        <xs:element name="md" type="xs:gMonthDay"/>
        <xs:element name="day" type="xs:gDay"/>
        <xs:element name="m" type="xs:gMonth"/>
        <xs:element name="hex"><xs:simpleType><xs:restriction base="xs:hexBinary">
          <xs:length value="4"/></xs:restriction></xs:simpleType></xs:element>
        <xs:element name="b64"><xs:simpleType><xs:restriction base="xs:base64Binary">
          <xs:maxLength value="6"/></xs:restriction></xs:simpleType></xs:element>
        <xs:element name="uri" type="xs:anyURI"/>
        <xs:element name="lang" type="xs:language"/>
        <xs:element name="dur" type="xs:duration"/>
        <xs:element name="qn" type="xs:QName"/>
        <xs:element name="tokens" type="xs:NMTOKENS"/>
        <xs:element name="t"><xs:simpleType><xs:restriction base="xs:time">
          <xs:minInclusive value="09:00:00"/><xs:maxExclusive value="17:00:00"/></xs:restriction></xs:simpleType>
        </xs:element>
        <xs:element name="d"><xs:simpleType><xs:restriction base="xs:date">
          <xs:minInclusive value="1999-12-30"/><xs:maxInclusive value="2000-01-02"/></xs:restriction></xs:simpleType>
        </xs:element>
        <xs:element name="dec"><xs:simpleType><xs:restriction base="xs:decimal">
          <xs:totalDigits value="5"/><xs:fractionDigits value="3"/><xs:minExclusive value="-1"/>
        </xs:restriction></xs:simpleType></xs:element>
        <xs:element name="small" type="xs:byte"/>
        <xs:element name="big" type="xs:unsignedLong"/>
        <xs:element name="flag" type="xs:boolean"/>
        <xs:element name="either"><xs:simpleType><xs:union memberTypes="xs:int xs:date"/></xs:simpleType>
        </xs:element>
      </xs:sequence>
    </xs:complexType>
  </xs:element>
</xs:schema>
"""


def test_xsd_builtin_types_validate() -> None:
    plan = compile_plan(load_schema(BUILTINS, "b.xsd"), [], {"seed": 6}, record_count=300)
    schema = xmlschema.XMLSchema10(BUILTINS.decode())
    for record in _write(plan, "xml").splitlines()[2:-1]:
        schema.validate(record)


def test_nil_check_visits_shared_generators_once() -> None:
    """Recursion points share generators (a DAG); a tree walk over 2^60 paths would never end."""
    from app.generation.engine.choices import ChoiceGen
    from app.generation.engine.generators import LeafGen
    from app.generation.model import Kind, Node
    from app.generation.writers.xml import _has_nullable

    leaf = LeafGen(Node(Kind.STRING, name="x"), 1, "x", None, "string")
    gen: LeafGen | ChoiceGen = leaf
    for i in range(60):
        gen = ChoiceGen(Node(Kind.CHOICE), i, "c", [gen, gen])
    assert _has_nullable(gen) is False
    leaf.null_rate = 0.1
    assert _has_nullable(gen) is True
