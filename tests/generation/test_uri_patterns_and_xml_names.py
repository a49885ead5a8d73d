"""A pattern on a URI-like (or `regex`) format yields values valid for both, judged by
jsonschema's draft FORMAT_CHECKER; an XSD attribute in the XML namespace (`xml:lang`) is
written as `xml:lang`, never under a redeclared `xml` prefix, judged by xmlschema."""

from __future__ import annotations

import io
import zipfile

import jsonschema
import orjson
import pytest
import xmlschema

from app.generation.errors import GenerationError
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from tests.generation.corpus import CORPUS


def _records(schema: dict, n: int = 300, seed: int = 5) -> list:
    plan = compile_plan(load_schema(orjson.dumps(schema), "s.json"), [], {"seed": seed}, record_count=n)
    buf = io.BytesIO()
    plan.write("json", buf)
    return orjson.loads(buf.getvalue())


@pytest.mark.parametrize(("fmt", "pattern"), [
    ("uri-reference", r"^https?://.+\.ya?ml$"),   # gitlab-ci include[].remote
    ("uri", r"^[a-z]+:\S+$"),
    ("iri-reference", r"^/[^#\s]+$"),
    ("uri-template", r"^/items/.+$"),
    ("hostname", r"^\S{3,20}$"),
    ("regex", r"^/.+/$"),                         # gitlab-ci pages.coverage
])
def test_pattern_values_also_satisfy_the_format(fmt: str, pattern: str) -> None:
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "required": ["v"],
              "properties": {"v": {"type": "string", "format": fmt, "pattern": pattern}}}
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    values = [r["v"] for r in _records(schema)]
    for v in values:
        assert not list(validator.iter_errors({"v": v})), v
    assert len(set(values)) > 200  # still drawn from the pattern's broad classes, not a constant


def test_pattern_that_can_never_be_the_format_fails_fast() -> None:
    schema = {"type": "object", "required": ["v"],
              "properties": {"v": {"type": "string", "format": "uri", "pattern": r"^\s+$"}}}
    with pytest.raises(GenerationError, match="checked as a 'uri'"):
        _records(schema, n=10)


XML_NS_XSD = b"""<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns="urn:doc" targetNamespace="urn:doc"
           elementFormDefault="qualified">
  <xs:import namespace="http://www.w3.org/XML/1998/namespace" schemaLocation="xml.xsd"/>
  <xs:element name="doc">
    <xs:complexType>
      <xs:sequence><xs:element name="p" type="xs:string" maxOccurs="3"/></xs:sequence>
      <xs:attribute ref="xml:lang" use="required"/>
      <xs:attribute name="id" type="xs:ID"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
"""


def test_xml_namespace_attribute_is_written_as_xml_lang() -> None:
    xml_xsd = (CORPUS / "xsd/xhtml1-strict/XML/xml.xsd").read_bytes()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("doc.xsd", XML_NS_XSD)
        zf.writestr("xml.xsd", xml_xsd)
    plan = compile_plan(load_schema(buf.getvalue(), "doc.xsd.zip"), [], {"seed": 2}, record_count=50)
    out = io.BytesIO()
    plan.write("xml", out)
    records = out.getvalue().decode().splitlines()[2:-1]
    assert len(records) == 50
    schema = xmlschema.XMLSchema10(
        XML_NS_XSD.decode(), locations={"http://www.w3.org/XML/1998/namespace": str(CORPUS / "xsd/xhtml1-strict/XML/xml.xsd")})
    for r in records:
        schema.validate(r)  # well-formed, and xml:lang really is the XML namespace's attribute
        assert " xml:lang=" in r and "xmlns:xml" not in r
