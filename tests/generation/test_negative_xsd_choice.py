"""An xs:choice broken both ways (issue 30's "none or two"): a record left with no branch, or
given a second one (an element of a branch it did not take, copied from one of the plan's first
records that took it). Every label checked by xmlschema; both kinds made."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

import xmlschema

from app.generation.negative.engine import attach_negative
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from tests.generation.test_negative_xsd import check_labels

XSD = b"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:c" xmlns="urn:c"
  elementFormDefault="qualified">
 <xs:element name="order"><xs:complexType><xs:sequence>
  <xs:element name="id" type="xs:int"/>
  <xs:choice>
   <xs:element name="card" type="xs:string"/>
   <xs:element name="iban"><xs:simpleType><xs:restriction base="xs:string">
    <xs:pattern value="[A-Z]{2}[0-9]{6}"/></xs:restriction></xs:simpleType></xs:element>
   <xs:element name="voucher" type="xs:int"/>
  </xs:choice>
  <xs:element name="note" type="xs:string" minOccurs="0"/>
 </xs:sequence></xs:complexType></xs:element></xs:schema>"""
BRANCHES = {"{urn:c}card", "{urn:c}iban", "{urn:c}voucher"}


def test_a_choice_is_left_with_no_branch_or_given_two() -> None:
    loaded = load_schema(XSD, "order.xsd")
    plan = compile_plan(loaded, [], {"seed": 3}, record_count=40)
    attach_negative(plan, loaded, rate=1.0, keywords=["choice"], formats=("xml",))
    out, labels = io.BytesIO(), io.BytesIO()
    plan.write("xml", out, labels=labels)
    records = list(ET.fromstring(out.getvalue()))
    got = [json.loads(line) for line in labels.getvalue().splitlines()]
    assert len(got) == 40 and {label["keyword"] for label in got} == {"choice"}
    check_labels(xmlschema.XMLSchema10(XSD.decode()), records, got)
    taken = [[child.tag for child in record if child.tag in BRANCHES] for record in records]
    assert sum(not t for t in taken) >= 5, "records with no branch"
    two = [t for t in taken if len(t) == 2]
    assert len(two) >= 5 and all(len(set(t)) == 2 for t in two), "records with two different branches"
    assert all(len(t) in (0, 2) for t in taken)
