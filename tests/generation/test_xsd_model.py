"""XSD -> field model: concrete facts on the benchmark XSD and on each construct family."""

from __future__ import annotations

from decimal import Decimal

import xmlschema

from app.generation.model import ChoiceMode, FieldTree, Kind
from app.generation.schema.loader import load_schema
from tests.paths import BENCH

XS = 'xmlns:xs="http://www.w3.org/2001/XMLSchema"'


def _tree(body: str, root: str | None = None, attrs: str = "") -> FieldTree:
    return load_schema(f"<xs:schema {XS}{attrs}>{body}</xs:schema>".encode()).field_tree(root)


def _record(body: str, fields: str = "", attributes: str = "") -> str:
    return (f'<xs:element name="r"><xs:complexType><xs:sequence>{fields}</xs:sequence>{attributes}'
            f"</xs:complexType></xs:element>{body}")


def test_bench_customer_order_facts() -> None:
    loaded = load_schema((BENCH / "customer_order.xsd").read_bytes())
    tree = loaded.field_tree()
    assert tree.root_name == "customer_orders/customer_order"
    root = tree.root
    assert root.kind is Kind.OBJECT and root.name == "customer_order"
    ident = tree.find("@id")
    assert ident.kind is Kind.INTEGER and ident.required and ident.xml.attribute
    assert (ident.minimum, ident.maximum) == (1, 2**63 - 1)  # xs:long's implied maximum
    uuid = tree.find("@uuid")
    assert uuid.pattern_anchored and uuid.patterns[0].startswith("[0-9A-Fa-f]{8}-")
    assert (tree.find("first_name").min_length, tree.find("first_name").max_length) == (1, 40)
    assert tree.find("created_at").kind is Kind.DATETIME and tree.find("birth_date").kind is Kind.DATE
    amount = tree.find("amount")
    assert amount.kind is Kind.NUMBER and amount.fraction_digits == 2
    assert (amount.minimum, amount.maximum) == (Decimal(0), Decimal(100000))
    assert tree.find("is_vip").kind is Kind.BOOLEAN
    assert tree.find("referral_code").required is False
    notes = tree.find("notes")
    assert notes.nullable and not notes.required and notes.max_length == 200
    assert tree.find("address.country").enum == ["US", "DE", "FR", "GB", "NL"]
    line_item = tree.find("line_items.line_item")
    assert line_item.kind is Kind.ARRAY and (line_item.min_items, line_item.max_items) == (1, 5)
    assert line_item.items.child("quantity").maximum == 100
    assert loaded.field_count == 20


def test_bench_record_validators() -> None:
    loaded = load_schema((BENCH / "customer_order.xsd").read_bytes())
    record = {
        "@id": 7, "@uuid": "3f2b9c1e-8d4a-4e0b-9a57-2c1d5e6f7a8b", "first_name": "A", "last_name": "B",
        "email": "a@example.com", "phone": "+12345678901", "created_at": "2024-01-02T03:04:05",
        "birth_date": "1990-05-06", "status": "paid", "amount": Decimal("19.99"), "is_vip": True,
        "address": {"street": "s", "city": "c", "postcode": "12345", "country": "DE"},
        "line_items": {"line_item": [{"sku": "ABC-1234", "quantity": 2, "unit_price": Decimal("3.50")}]},
    }
    validator = loaded.record_validator()
    assert validator.json_error(record) is None
    assert "postcode" in validator.json_error({**record, "address": {**record["address"], "postcode": "1"}})
    element = loaded.document.element(loaded.default_root)
    xml = xmlschema.etree_tostring(element.encode(record))
    assert validator.xml_error(xml) is None
    assert "uuid" in validator.xml_error(xml.replace(record["@uuid"], "nope"))
    assert "expected" in validator.xml_error("<other/>")


def test_builtin_types_and_implied_bounds() -> None:
    fields = "".join(f'<xs:element name="{t}" type="xs:{t}"/>' for t in (
        "unsignedByte", "positiveInteger", "int", "duration", "gYear", "anyURI", "language", "hexBinary",
        "time", "double", "NCName", "anyType"))
    tree = _tree(_record("", fields))
    assert (tree.find("unsignedByte").minimum, tree.find("unsignedByte").maximum) == (0, 255)
    assert tree.find("positiveInteger").minimum == 1 and tree.find("positiveInteger").maximum is None
    assert (tree.find("int").minimum, tree.find("int").maximum) == (-(2**31), 2**31 - 1)
    assert tree.find("duration").format == "xsd:duration" and tree.find("duration").kind is Kind.STRING
    assert tree.find("gYear").format == "xsd:gYear"
    assert tree.find("anyURI").format == "xsd:anyURI"
    assert tree.find("language").format == "xsd:language" and tree.find("language").patterns
    assert tree.find("hexBinary").format == "xsd:hexBinary"
    assert tree.find("time").kind is Kind.TIME
    assert tree.find("double").kind is Kind.NUMBER and tree.find("double").format == "xsd:double"
    assert tree.find("NCName").patterns  # the \\i\\c* lexical space, translated
    assert tree.find("anyType").kind is Kind.OBJECT


def test_restriction_chain_facets() -> None:
    body = """
      <xs:simpleType name="Code"><xs:restriction base="xs:token"><xs:pattern value="[A-Z]+"/>
        <xs:pattern value="[0-9]+"/><xs:maxLength value="8"/></xs:restriction></xs:simpleType>
      <xs:simpleType name="ShortCode"><xs:restriction base="Code"><xs:pattern value=".{2,4}"/>
        <xs:minLength value="2"/></xs:restriction></xs:simpleType>
      <xs:simpleType name="Price"><xs:restriction base="xs:decimal"><xs:minExclusive value="0"/>
        <xs:maxExclusive value="1000"/><xs:totalDigits value="6"/><xs:fractionDigits value="2"/>
        </xs:restriction></xs:simpleType>
      <xs:simpleType name="Day"><xs:restriction base="xs:date"><xs:minInclusive value="2020-01-01"/>
        <xs:enumeration value="2020-01-01"/><xs:enumeration value="2021-06-30"/></xs:restriction></xs:simpleType>
      <xs:simpleType name="Small"><xs:restriction base="xs:int"><xs:minExclusive value="-1"/>
        <xs:maxExclusive value="10"/></xs:restriction></xs:simpleType>"""
    fields = ('<xs:element name="code" type="ShortCode"/><xs:element name="price" type="Price"/>'
              '<xs:element name="day" type="Day"/><xs:element name="small" type="Small"/>')
    tree = _tree(_record(body, fields))
    code = tree.find("code")
    # XSD `.` excludes only \r and \n; patterns of one derivation step are alternatives
    assert code.patterns == ["[^\\r\\n]{2,4}", "(?:[A-Z]+)|(?:[0-9]+)"] and code.pattern_anchored
    assert (code.min_length, code.max_length) == (2, 8) and code.format == "xsd:token"
    price = tree.find("price")
    assert (price.minimum, price.exclusive_minimum, price.maximum, price.exclusive_maximum) == (
        Decimal(0), True, Decimal(1000), True)
    assert (price.total_digits, price.fraction_digits) == (6, 2)
    day = tree.find("day")
    assert day.kind is Kind.DATE and day.minimum == "2020-01-01" and day.enum == ["2020-01-01", "2021-06-30"]
    assert (tree.find("small").minimum, tree.find("small").maximum) == (0, 9)


def test_lists_unions_and_attributes() -> None:
    body = """<xs:simpleType name="Ints"><xs:list itemType="xs:int"/></xs:simpleType>
      <xs:simpleType name="Few"><xs:restriction base="Ints"><xs:maxLength value="3"/></xs:restriction></xs:simpleType>
      <xs:simpleType name="IntOrDate"><xs:union memberTypes="xs:int xs:date"/></xs:simpleType>"""
    attrs = ('<xs:attribute name="lang" type="xs:language" default="en"/>'
             '<xs:attribute name="v" type="xs:string" fixed="1" use="required"/>'
             '<xs:attribute name="gone" type="xs:string" use="prohibited"/>')
    tree = _tree(_record(body, '<xs:element name="few" type="Few"/><xs:element name="u" type="IntOrDate"/>',
                         attrs))
    few = tree.find("few")
    assert few.kind is Kind.ARRAY and few.max_items == 3 and few.items.kind is Kind.INTEGER
    assert few.xml.list_value
    u = tree.find("u")
    assert u.kind is Kind.CHOICE and u.choice_mode is ChoiceMode.UNION
    assert [o.kind for o in u.options] == [Kind.INTEGER, Kind.DATE]
    lang = tree.find("@lang")
    assert not lang.required and lang.xml.default == "en" and lang.xml.attribute
    v = tree.find("@v")
    assert v.required and v.xml.fixed == "1" and v.has_const and v.const == "1"
    assert tree.find("@gone") is None


def test_groups_choice_all_and_occurs() -> None:
    fields = """<xs:choice><xs:element name="email" type="xs:string"/><xs:element name="phone" type="xs:string"/>
      </xs:choice><xs:sequence minOccurs="0" maxOccurs="3"><xs:element name="k" type="xs:string"/>
      <xs:element name="v" type="xs:int"/></xs:sequence><xs:element name="tag" type="xs:string"
      minOccurs="0" maxOccurs="unbounded"/>"""
    tree = _tree(_record("", fields))
    choice = tree.root.children[0]
    assert choice.name == "" and choice.kind is Kind.CHOICE and choice.choice_mode is ChoiceMode.XSD_CHOICE
    assert [o.name for o in choice.options] == ["email", "phone"]
    pairs = tree.root.children[1]
    assert pairs.kind is Kind.ARRAY and pairs.name == "" and (pairs.min_items, pairs.max_items) == (0, 3)
    assert [c.name for c in pairs.items.children] == ["k", "v"]
    tag = tree.find("tag")
    assert tag.kind is Kind.ARRAY and tag.max_items is None and not tag.required
    every = _tree('<xs:element name="r"><xs:complexType><xs:all><xs:element name="a" type="xs:int"/>'
                  '<xs:element name="b" type="xs:int" minOccurs="0"/></xs:all></xs:complexType></xs:element>')
    assert every.root.xml.all_group and not every.root.child("b").required


def test_extension_simple_content_mixed_nillable() -> None:
    body = """<xs:complexType name="Base"><xs:sequence><xs:element name="a" type="xs:int"/></xs:sequence>
      <xs:attribute name="id" type="xs:ID"/></xs:complexType>
      <xs:complexType name="Derived"><xs:complexContent><xs:extension base="Base"><xs:sequence>
      <xs:element name="b" type="xs:string"/></xs:sequence></xs:extension></xs:complexContent></xs:complexType>
      <xs:complexType name="Money"><xs:simpleContent><xs:extension base="xs:decimal">
      <xs:attribute name="currency" type="xs:string" use="required"/></xs:extension></xs:simpleContent></xs:complexType>
      <xs:complexType name="Para" mixed="true"><xs:sequence><xs:element name="em" type="xs:string"
      minOccurs="0"/></xs:sequence></xs:complexType>"""
    fields = ('<xs:element name="d" type="Derived"/><xs:element name="price" type="Money" nillable="true"/>'
              '<xs:element name="p" type="Para"/>')
    tree = _tree(_record(body, fields))
    assert [c.name for c in tree.find("d").children] == ["@id", "a", "b"]
    assert tree.find("d.@id").format == "xsd:ID"
    price = tree.find("price")
    assert price.nullable and [c.name for c in price.children] == ["@currency", "$"]
    assert tree.find("price.$").kind is Kind.NUMBER and tree.find("price.$").xml.text
    assert any("mixed content" in u for u in tree.find("p").unsupported)


def test_substitution_groups_and_abstract() -> None:
    body = """<xs:element name="shape" type="xs:string" abstract="true"/>
      <xs:element name="circle" type="xs:string" substitutionGroup="shape"/>
      <xs:element name="square" type="xs:string" substitutionGroup="shape"/>
      <xs:element name="drawing"><xs:complexType><xs:sequence><xs:element ref="shape" maxOccurs="4"/>
      </xs:sequence></xs:complexType></xs:element>"""
    tree = _tree(body, "drawing")
    shapes = tree.root.children[0]
    assert shapes.kind is Kind.ARRAY and shapes.max_items == 4
    choice = shapes.items
    assert choice.kind is Kind.CHOICE and sorted(o.name for o in choice.options) == ["circle", "square"]
    assert sorted(choice.xml.substitutes) == ["circle", "square"]


def test_namespaces_and_roots() -> None:
    loaded = load_schema(f"""<xs:schema {XS} xmlns:t="urn:t" targetNamespace="urn:t"
      elementFormDefault="qualified"><xs:element name="a" type="t:A"/><xs:element name="b" type="xs:int"/>
      <xs:complexType name="A"><xs:sequence><xs:element ref="t:b"/></xs:sequence></xs:complexType>
      </xs:schema>""".encode())
    assert loaded.roots == ["a", "b"] and loaded.default_root == "a"  # b is used inside a
    tree = loaded.field_tree("{urn:t}a")
    assert tree.root.xml.namespace == "urn:t" and tree.find("b").xml.namespace == "urn:t"


def test_xsd11_assertions_listed_as_unsupported() -> None:
    loaded = load_schema(f"""<xs:schema {XS}><xs:element name="n"><xs:simpleType>
      <xs:restriction base="xs:int"><xs:assertion test="$value mod 2 = 0"/></xs:restriction>
      </xs:simpleType></xs:element></xs:schema>""".encode())
    assert loaded.version == "1.1"
    assert any("assertion" in u for u in loaded.field_tree().root.unsupported)


def test_xml_namespace_import_uses_bundled_schema_and_prefixed_key() -> None:
    for imp in ('<xs:import namespace="http://www.w3.org/XML/1998/namespace"/>',
                '<xs:import namespace="http://www.w3.org/XML/1998/namespace" '
                'schemaLocation="http://www.w3.org/2001/xml.xsd"/>'):
        loaded = load_schema(f'<xs:schema {XS}>{imp}<xs:element name="a"><xs:complexType>'
                             '<xs:attribute ref="xml:lang"/></xs:complexType></xs:element></xs:schema>'.encode())
        lang = loaded.field_tree().root.children[0]
        assert lang.name == "@xml:lang" and lang.xml.namespace == "http://www.w3.org/XML/1998/namespace"
        assert loaded.record_validator().json_error({"@xml:lang": "en"}) is None


def test_fixed_values_become_typed_const() -> None:
    tree = _tree(_record("", '<xs:element name="n" type="xs:int" fixed="7"/>'
                             '<xs:element name="b" type="xs:boolean" fixed="true"/>'))
    assert tree.find("n").has_const and tree.find("n").const == 7
    assert tree.find("b").const is True and tree.find("b").xml.fixed == "true"
