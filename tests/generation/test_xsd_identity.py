"""XSD identity constraints (issue 18 class 7): xs:key, xs:unique and xs:keyref hold within each
generated record, as judged by a fresh xmlschema on the written XML (not the engine's own guard)."""

from __future__ import annotations

import io

import xmlschema

from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema

XSD = """<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:l="urn:lib" targetNamespace="urn:lib"
    elementFormDefault="qualified">
  <xs:element name="library">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="book" maxOccurs="5">
          <xs:complexType>
            <xs:sequence><xs:element name="title" type="xs:string"/></xs:sequence>
            <xs:attribute name="id" type="xs:string" use="required"/>
            <xs:attribute name="shelf" type="l:Shelf"/>
          </xs:complexType>
        </xs:element>
        <xs:element name="loan" minOccurs="0" maxOccurs="4">
          <xs:complexType>
            <xs:sequence><xs:element name="bookRef" type="xs:string"/></xs:sequence>
          </xs:complexType>
        </xs:element>
      </xs:sequence>
    </xs:complexType>
    <xs:key name="bookKey"><xs:selector xpath="l:book"/><xs:field xpath="@id"/></xs:key>
    <xs:unique name="shelfUnique"><xs:selector xpath="l:book"/><xs:field xpath="@shelf"/></xs:unique>
    <xs:keyref name="loanBook" refer="l:bookKey"><xs:selector xpath="l:loan"/><xs:field xpath="l:bookRef"/></xs:keyref>
  </xs:element>
  <xs:simpleType name="Shelf">
    <xs:restriction base="xs:integer"><xs:minInclusive value="1"/><xs:maxInclusive value="6"/></xs:restriction>
  </xs:simpleType>
</xs:schema>"""


def test_keys_unique_and_keyrefs_hold_in_every_record() -> None:
    loaded = load_schema(XSD.encode(), "library.xsd")
    plan = compile_plan(loaded, params={"seed": 5}, record_count=300, use_schema_validator=False)
    out = io.BytesIO()
    plan.write("xml", out)
    schema = xmlschema.XMLSchema10(XSD)
    records = list(xmlschema.XMLResource(out.getvalue().decode()).root)
    assert len(records) == 300
    shelves = 0
    for record in records:
        errors = list(schema.iter_errors(record))
        assert not errors, errors[0].reason
        shelves += sum(1 for book in record if book.get("shelf") is not None)
    # a shelf number may appear at most once per library, and it is still generated
    assert shelves > 100
