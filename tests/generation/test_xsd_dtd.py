"""XSDs with an internal DTD subset (issue 18 class 8): literal general entities are accepted, so the
W3C XML-Signature schema and schemas importing it load and generate valid XML; every other DOCTYPE
content is still refused, naming the DTD, without reading or expanding anything."""

from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path

import pytest
import xmlschema

from app.generation.errors import GenerationError
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from app.generation.schema.xml_dtd import MAX_ENTITIES, MAX_EXPANSION_CHARS

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "xsd"
XMLDSIG = (CORPUS / "xmldsig-core.xsd").read_bytes()
XS = 'xmlns:xs="http://www.w3.org/2001/XMLSchema"'
DS = "http://www.w3.org/2000/09/xmldsig#"

# a SAML-like schema: its own namespace, importing xmldsig by namespace and a remote location
MAIN = f"""<?xml version="1.0" encoding="UTF-8"?>
<xs:schema {XS} xmlns:ds="{DS}" xmlns:a="urn:example:assertion"
    targetNamespace="urn:example:assertion" elementFormDefault="qualified">
  <xs:import namespace="{DS}"
      schemaLocation="http://www.w3.org/TR/2002/REC-xmldsig-core-20020212/xmldsig-core-schema.xsd"/>
  <xs:element name="Assertion">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="Issuer" type="xs:string"/>
        <xs:element ref="ds:Signature" minOccurs="0"/>
      </xs:sequence>
      <xs:attribute name="ID" type="xs:ID" use="required"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
"""


def _zip(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, blob in files.items():
            zf.writestr(name, blob)
    return buf.getvalue()


def _xml(loaded: object, root: str | None, n: int) -> bytes:
    plan = compile_plan(loaded, params={"seed": 7, "root": root}, record_count=n)
    out = io.BytesIO()
    plan.write("xml", out)
    return out.getvalue()


def test_xmldsig_core_schema_loads_and_generates_valid_signatures() -> None:
    loaded = load_schema(XMLDSIG, "xmldsig-core-schema.xsd")
    assert loaded.default_root == "Signature" and "KeyInfo" in loaded.roots
    # the engine's own guard validates every record; judged again here by a fresh xmlschema
    document = _xml(loaded, "Signature", 30)
    schema = xmlschema.XMLSchema10(
        io.BytesIO(XMLDSIG.replace(b"<!DOCTYPE", b"<!-- ", 1).replace(b"]>", b"-->", 1))
    )
    container = xmlschema.XMLResource(document.decode())
    records = list(container.root)
    assert len(records) == 30
    for record in records:
        assert schema.is_valid(record), schema.validate(record)


def test_zip_importing_xmldsig_generates_valid_xml() -> None:
    upload = _zip({"main.xsd": MAIN.encode(), "xmldsig-core-schema.xsd": XMLDSIG})
    loaded = load_schema(upload, "saml-like.zip")
    assert loaded.default_root == "Assertion"
    document = _xml(loaded, "Assertion", 40)
    assert b"Signature" in document and DS.encode() in document


def test_entities_in_attributes_and_text_are_expanded() -> None:
    xsd = (
        '<!DOCTYPE xs:schema [<!ENTITY ns "urn:example:ent"> <!ENTITY doc "made with entities">]>'
        f'<xs:schema {XS} targetNamespace="&ns;" xmlns:e="&ns;">'
        '<xs:element name="item" type="e:T"><xs:annotation><xs:documentation>&doc;</xs:documentation>'
        '</xs:annotation></xs:element><xs:simpleType name="T"><xs:restriction base="xs:string">'
        '<xs:enumeration value="a&amp;b"/></xs:restriction></xs:simpleType></xs:schema>'
    )
    loaded = load_schema(xsd.encode(), "ent.xsd")
    assert loaded.document.schema.target_namespace == "urn:example:ent"
    tree = loaded.field_tree("item")
    assert tree.root.enum == ["a&b"] and tree.root.description == "made with entities"
    assert b"a&amp;b" in _xml(loaded, "item", 3)


def test_attlist_defaults_are_not_applied() -> None:
    xsd = (
        '<!DOCTYPE xs:schema [<!ATTLIST xs:schema targetNamespace CDATA "urn:injected">]>'
        f'<xs:schema {XS}><xs:element name="a" type="xs:string"/></xs:schema>'
    )
    assert load_schema(xsd.encode()).document.schema.target_namespace == ""


REFUSED = {
    "parameter-entity reference": "<!DOCTYPE s [<!ENTITY % p \"<!ENTITY x '1'>\"> %p; ]>",
    "external parameter entity": '<!DOCTYPE s [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p; ]>',
    "external general entity": '<!DOCTYPE s [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
    "public external entity": '<!DOCTYPE s [<!ENTITY x PUBLIC "-//x" "http://127.0.0.1:9/x">]>',
    "unparsed entity": '<!DOCTYPE s [<!NOTATION n SYSTEM "n"><!ENTITY x SYSTEM "y" NDATA n>]>',
    "notation": '<!DOCTYPE s [<!NOTATION n SYSTEM "n">]>',
    "entity referring to another": '<!DOCTYPE s [<!ENTITY a "x"><!ENTITY b "&a;&a;">]>',
    "entity with markup": "<!DOCTYPE s [<!ENTITY a \"<xs:element name='x'/>\">]>",
    "too many entities": "<!DOCTYPE s ["
    + "".join(f'<!ENTITY e{i} "v">' for i in range(MAX_ENTITIES + 1))
    + "]>",
}


@pytest.mark.parametrize("doctype", REFUSED.values(), ids=list(REFUSED))
def test_other_doctype_content_refused(doctype: str) -> None:
    xsd = f'{doctype}<xs:schema {XS}><xs:element name="a" type="xs:string"/></xs:schema>'
    with pytest.raises(GenerationError, match="declares a DTD") as info:
        load_schema(xsd.encode())
    assert "passwd" not in info.value.detail and "127.0.0.1" not in info.value.detail


def test_undeclared_entity_refused_even_with_an_external_subset() -> None:
    xsd = (
        '<!DOCTYPE xs:schema PUBLIC "-//W3C//DTD XMLSchema 200102//EN" "http://127.0.0.1:9/XMLSchema.dtd" []>'
        f'<xs:schema {XS}><xs:element name="a" type="xs:string"><xs:annotation><xs:documentation>'
        "&undeclared;</xs:documentation></xs:annotation></xs:element></xs:schema>"
    )
    with pytest.raises(
        GenerationError, match="declares a DTD with a reference to an entity it does not declare"
    ):
        load_schema(xsd.encode())


def test_quadratic_expansion_refused_before_expanding() -> None:
    big = "x" * 60_000
    refs = "&big;" * (MAX_EXPANSION_CHARS // 60_000 + 1)
    xsd = (
        f'<!DOCTYPE xs:schema [<!ENTITY big "{big}">]><xs:schema {XS}><xs:element name="a" type="xs:string">'
        f"<xs:annotation><xs:documentation>{refs}</xs:documentation></xs:annotation></xs:element></xs:schema>"
    )
    started = time.monotonic()
    with pytest.raises(GenerationError, match="declares a DTD with entities whose references could add"):
        load_schema(xsd.encode())
    assert time.monotonic() - started < 1


def test_zip_member_with_bad_doctype_refused() -> None:
    bad = XMLDSIG.replace(b"<!ENTITY dsig", b'<!ENTITY x SYSTEM "file:///etc/hostname"><!ENTITY dsig', 1)
    with pytest.raises(GenerationError, match=r"zip member 'xmldsig-core-schema\.xsd' declares a DTD"):
        load_schema(_zip({"main.xsd": MAIN.encode(), "xmldsig-core-schema.xsd": bad}), "u.zip")
