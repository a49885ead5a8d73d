"""XSD wildcards, abstract types and mixed content (issue 18 "Also"): each generates XML a fresh
xmlschema accepts, or is listed in `unsupported` / refused naming the reason."""

from __future__ import annotations

import io

import pytest
import xmlschema

from app.generation.errors import GenerationError
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from app.generation.schema.repr import schema_repr

XS = 'xmlns:xs="http://www.w3.org/2001/XMLSchema"'


def _schema(body: str) -> str:
    return f'<xs:schema {XS} xmlns:t="urn:t" targetNamespace="urn:t" elementFormDefault="qualified">{body}</xs:schema>'


def _valid_records(xsd: str, root: str, n: int = 40) -> list[object]:
    loaded = load_schema(xsd.encode(), "s.xsd")
    plan = compile_plan(loaded, params={"seed": 2, "root": root}, record_count=n, use_schema_validator=False)
    out = io.BytesIO()
    plan.write("xml", out)
    schema = xmlschema.XMLSchema10(xsd)
    records = list(xmlschema.XMLResource(out.getvalue().decode()).root)
    assert len(records) == n
    for record in records:
        schema.validate(record)
    return records


@pytest.mark.parametrize("namespace", ["##other", "##any", "##local", "##targetNamespace", "urn:x urn:y"])
@pytest.mark.parametrize("process", ["lax", "skip"])
def test_required_lax_wildcard_generates_an_undeclared_element(namespace: str, process: str) -> None:
    xsd = _schema(
        '<xs:element name="doc"><xs:complexType><xs:sequence><xs:element name="id" type="xs:int"/>'
        f'<xs:any namespace="{namespace}" processContents="{process}" maxOccurs="3"/>'
        "</xs:sequence></xs:complexType></xs:element>"
    )
    records = _valid_records(xsd, "doc")
    assert all(len(r) >= 2 for r in records)  # the id and at least one wildcard element


def test_required_strict_wildcard_generates_a_declared_global_element() -> None:
    xsd = _schema(
        '<xs:element name="doc"><xs:complexType><xs:sequence>'
        '<xs:any namespace="##targetNamespace" processContents="strict"/></xs:sequence></xs:complexType></xs:element>'
        '<xs:element name="note"><xs:simpleType><xs:restriction base="xs:string"><xs:length value="4"/>'
        "</xs:restriction></xs:simpleType></xs:element>"
    )
    records = _valid_records(xsd, "doc")
    assert {child.tag for r in records for child in r} == {"{urn:t}note"}


def test_abstract_type_left_out_of_a_choice_and_refused_when_required() -> None:
    xsd = _schema(
        '<xs:complexType name="Base" abstract="true"><xs:sequence><xs:element name="x" type="xs:string"/>'
        "</xs:sequence></xs:complexType>"
        '<xs:element name="Id" type="t:Base"/>'
        '<xs:element name="subject"><xs:complexType><xs:choice><xs:element ref="t:Id"/>'
        '<xs:element name="name" type="xs:string"/></xs:choice></xs:complexType></xs:element>'
        '<xs:element name="strict"><xs:complexType><xs:sequence><xs:element ref="t:Id"/>'
        "</xs:sequence></xs:complexType></xs:element>"
    )
    records = _valid_records(xsd, "subject")
    assert {child.tag for r in records for child in r} == {"{urn:t}name"}
    loaded = load_schema(xsd.encode(), "s.xsd")
    with pytest.raises(GenerationError, match="abstract type t:Base: an instance needs xsi:type"):
        compile_plan(loaded, params={"root": "strict"}, record_count=5)


def test_mixed_content_generates_valid_elements_and_is_listed() -> None:
    xsd = _schema(
        '<xs:element name="p"><xs:complexType mixed="true"><xs:sequence><xs:element name="b" type="xs:string" '
        'maxOccurs="2"/></xs:sequence></xs:complexType></xs:element>'
    )
    _valid_records(xsd, "p")
    reasons = [u["reason"] for u in schema_repr(load_schema(xsd.encode(), "s.xsd"), "p")["unsupported"]]
    assert any("mixed content" in r for r in reasons)


def test_boolean_with_a_pattern_draws_the_forms_it_accepts() -> None:
    """SOAP 1.1's mustUnderstand: xs:boolean restricted to the pattern 0|1 (was written true/false)."""
    xsd = _schema(
        '<xs:element name="h"><xs:complexType><xs:attribute name="must" use="required"><xs:simpleType>'
        '<xs:restriction base="xs:boolean"><xs:pattern value="0|1"/></xs:restriction></xs:simpleType>'
        "</xs:attribute></xs:complexType></xs:element>"
    )
    records = _valid_records(xsd, "h")
    assert {r.get("must") for r in records} == {"0", "1"}
