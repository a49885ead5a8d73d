"""The identity re-draw check without xmlschema (app/generation/schema/xsd_identity.py): on plain
xs:unique / xs:key constraints it rejects every record xmlschema rejects for a duplicate or a
missing key (it may reject more: values equal after whitespace collapse or as decimals), and an
element with an xs:keyref, a defaulted field or an XPath it cannot follow keeps xmlschema."""

from __future__ import annotations

import pytest
import xmlschema

from app.generation.schema.xsd_identity import IdentityCheck


def _schema(identities: str, tag_default: str = "") -> xmlschema.XMLSchema10:
    return xmlschema.XMLSchema10(
        f"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:t="urn:t" targetNamespace="urn:t"
           elementFormDefault="qualified">
  <xs:complexType name="Node">
    <xs:sequence>
      <xs:element name="node" type="t:Node" minOccurs="0" maxOccurs="unbounded"/>
      <xs:element name="code" type="xs:string" minOccurs="0"/>
      <xs:element name="link" minOccurs="0" maxOccurs="unbounded">
        <xs:complexType><xs:attribute name="to" type="xs:int"/></xs:complexType>
      </xs:element>
    </xs:sequence>
    <xs:attribute name="ref" type="xs:string"/>
    <xs:attribute name="num" type="xs:int"/>
    <xs:attribute name="tag" type="xs:string" {tag_default}/>
  </xs:complexType>
  <xs:element name="doc">
    <xs:complexType>
      <xs:sequence><xs:element name="node" type="t:Node" maxOccurs="unbounded"/></xs:sequence>
    </xs:complexType>
    {identities}
  </xs:element>
</xs:schema>"""
    )


PLAIN = """
    <xs:unique name="anyRef"><xs:selector xpath=".//*"/><xs:field xpath="@ref"/></xs:unique>
    <xs:key name="num"><xs:selector xpath="t:node"/><xs:field xpath="@num"/></xs:key>
    <xs:unique name="codes"><xs:selector xpath=".//t:node | t:node"/><xs:field xpath="t:code"/></xs:unique>
"""

DOCS = {
    "valid": '<node ref="a" num="1"><node ref="b"><code>x</code></node></node><node num="2"><code>y</code></node>',
    "duplicate ref deep": '<node ref="a" num="1"><node><node ref="a"/></node></node>',
    "key missing": '<node ref="a"><node ref="b"/></node>',
    "key duplicate as int": '<node num="1"/><node num="01"/>',
    "duplicate code in two alternatives": '<node num="1"><code>q</code><node><code>q</code></node></node>',
    "one node in both alternatives": '<node num="1"><code>q</code></node>',
}


def _wrap(body: str) -> str:
    return f'<doc xmlns="urn:t">{body}</doc>'


def test_plain_constraints_reject_what_xmlschema_rejects() -> None:
    schema = _schema(PLAIN)
    element = schema.elements["doc"]
    check = IdentityCheck.of(element)
    assert check is not None
    for name, body in DOCS.items():
        ours = [err for _i, err in check.xml_errors([_wrap(body)])]
        theirs = list(schema.iter_errors(_wrap(body)))
        assert bool(ours) == bool(theirs), (name, ours, theirs)
        assert bool(ours) is (name not in ("valid", "one node in both alternatives")), name


def test_stricter_on_values_equal_after_collapse() -> None:
    check = IdentityCheck.of(_schema(PLAIN).elements["doc"])
    assert check is not None
    errors = list(check.xml_errors([_wrap('<node num="1" ref="07"/><node num="2" ref=" 07"/>')]))
    assert errors and "duplicate" in errors[0][1]


@pytest.mark.parametrize(
    ("identities", "tag_default"),
    [
        (  # a keyref refers to another key's values
            PLAIN + '<xs:keyref name="links" refer="t:num"><xs:selector xpath=".//t:link"/>'
            '<xs:field xpath="@to"/></xs:keyref>',
            "",
        ),
        (  # xmlschema compares the default where the attribute is absent
            '<xs:unique name="tags"><xs:selector xpath="t:node"/><xs:field xpath="@tag"/></xs:unique>',
            'default="none"',
        ),
        (  # an axis ElementTree has no path for
            '<xs:unique name="tags"><xs:selector xpath="t:node"/><xs:field xpath="attribute::tag"/></xs:unique>',
            "",
        ),
    ],
)
def test_other_constraints_keep_xmlschema(identities: str, tag_default: str) -> None:
    assert IdentityCheck.of(_schema(identities, tag_default).elements["doc"]) is None
