"""load_schema: type detection from content, versions, roots, file names, zips, caching."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from app.generation.errors import GenerationError
from app.generation.model import Kind
from app.generation.schema.loader import LoadedSchema, load_schema, sanitise_filename
from app.generation.schema.repr import schema_repr
from tests.paths import BENCH


def _bench(name: str) -> bytes:
    return (BENCH / name).read_bytes()


def _zip(files: dict[str, str]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, text in files.items():
            zf.writestr(name, text)
    return buf.getvalue()


XS = 'xmlns:xs="http://www.w3.org/2001/XMLSchema"'


def test_json_schema_detected_from_content_not_name() -> None:
    loaded = load_schema(_bench("customer_order.schema.json"), "orders.xsd")
    assert loaded.type == "json_schema"
    assert loaded.version == "2020-12"
    assert loaded.roots == ["#"]
    assert loaded.default_root == "#"
    assert loaded.filename == "orders.xsd"
    assert loaded.field_count == 20


def test_xsd_detected_with_container_default_root() -> None:
    loaded = load_schema(_bench("customer_order.xsd"), "x.json")
    assert loaded.type == "xsd"
    assert loaded.version == "1.0"
    assert loaded.roots == ["customer_orders", "customer_orders/customer_order"]
    # customer_orders only wraps a repeated customer_order: the record is the item
    assert loaded.default_root == "customer_orders/customer_order"
    assert loaded.field_count == 20


@pytest.mark.parametrize(
    ("declared", "version"),
    [
        ("http://json-schema.org/draft-04/schema#", "draft-04"),
        ("http://json-schema.org/draft-06/schema#", "draft-06"),
        ("http://json-schema.org/draft-07/schema", "draft-07"),
        ("https://json-schema.org/draft/2019-09/schema", "2019-09"),
        ("https://json-schema.org/draft/2020-12/schema", "2020-12"),
    ],
)
def test_draft_versions(declared: str, version: str) -> None:
    doc = {"$schema": declared, "type": "object", "properties": {"a": {"type": "string"}}}
    assert load_schema(json.dumps(doc).encode()).version == version


def test_missing_schema_defaults_to_2020_12_and_unknown_schema_is_invalid() -> None:
    assert load_schema(b'{"type": "object"}').version == "2020-12"
    with pytest.raises(GenerationError, match="Unsupported \\$schema"):
        load_schema(b'{"$schema": "https://example.invalid/my-meta", "type": "object"}')


def test_definition_roots_and_unknown_root() -> None:
    doc = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/Person"}},
        "$defs": {"Person": {"type": "object", "properties": {"name": {"type": "string"}}},
                  "Name": {"type": "string"}},
        "definitions": {"a/b": {"properties": {"x": {"type": "integer"}}}},
    }
    loaded = load_schema(json.dumps(doc).encode())
    assert loaded.roots == ["#", "$defs/Person", "definitions/a~1b"]
    tree = loaded.field_tree("$defs/Person")
    assert tree.root.kind is Kind.OBJECT
    assert tree.root.child("name").kind is Kind.STRING
    assert loaded.field_tree("definitions/a~1b").root.child("x").kind is Kind.INTEGER
    with pytest.raises(GenerationError, match="Unknown root"):
        loaded.field_tree("$defs/Nope")
    assert loaded.record_validator("$defs/Person").json_error({"name": 5}) == "name: 5 is not of type 'string'"
    assert loaded.record_validator("$defs/Person").json_error({"name": "x"}) is None


def test_field_tree_is_cached_per_root() -> None:
    loaded = load_schema(_bench("customer_order.xsd"))
    assert loaded.field_tree() is loaded.field_tree("customer_orders/customer_order")
    assert loaded.field_tree("customer_orders") is not loaded.field_tree()
    assert isinstance(loaded, LoadedSchema)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [("../../etc/passwd", "passwd"), ("C:\\Users\\x\\my schema.json", "my_schema.json"), ("", None),
     ("..", None), ("a<b>.xsd", "a_b_.xsd")],
)
def test_filename_is_sanitised(raw: str, clean: str | None) -> None:
    assert sanitise_filename(raw) == clean


def test_utf8_bom_is_accepted() -> None:
    assert load_schema(b"\xef\xbb\xbf" + b'{"type": "string"}').type == "json_schema"


def test_xsd_11_detected_by_feature() -> None:
    xsd = f"""<xs:schema {XS}><xs:element name="r"><xs:complexType><xs:sequence>
      <xs:element name="a" type="xs:int"/><xs:element name="b" type="xs:int"/></xs:sequence>
      <xs:assert test="a le b"/></xs:complexType></xs:element></xs:schema>"""
    assert load_schema(xsd.encode()).version == "1.1"


def test_zip_with_main_and_include() -> None:
    content = _zip({
        "main.xsd": f'<xs:schema {XS}><xs:include schemaLocation="types/common.xsd"/>'
                    '<xs:element name="order" type="OrderType"/></xs:schema>',
        "types/common.xsd": f'<xs:schema {XS}><xs:complexType name="OrderType"><xs:sequence>'
                            '<xs:element name="sku" type="xs:string"/></xs:sequence></xs:complexType></xs:schema>',
    })
    loaded = load_schema(content, "bundle.zip")
    assert loaded.type == "xsd"
    assert loaded.roots == ["order"]
    assert loaded.field_tree().root.child("sku").kind is Kind.STRING


def test_zip_main_is_the_only_schema_not_included() -> None:
    content = _zip({
        "order.xsd": f'<xs:schema {XS}><xs:include schemaLocation="common.xsd"/>'
                     '<xs:element name="order" type="T"/></xs:schema>',
        "common.xsd": f'<xs:schema {XS}><xs:simpleType name="T"><xs:restriction base="xs:int"/>'
                      '</xs:simpleType></xs:schema>',
    })
    loaded = load_schema(content)
    assert loaded.roots == ["order"]
    assert loaded.field_tree().root.kind is Kind.INTEGER


def test_zip_import_resolved_by_namespace_inside_upload() -> None:
    content = _zip({
        "main.xsd": f'<xs:schema {XS} xmlns:c="urn:c"><xs:import namespace="urn:c" '
                    'schemaLocation="http://127.0.0.1:9/c.xsd"/>'
                    '<xs:element name="r"><xs:complexType><xs:sequence><xs:element ref="c:code"/>'
                    '</xs:sequence></xs:complexType></xs:element></xs:schema>',
        "lib/c.xsd": f'<xs:schema {XS} targetNamespace="urn:c" elementFormDefault="qualified">'
                     '<xs:element name="code" type="xs:token"/></xs:schema>',
    })
    loaded = load_schema(content)
    # an element from another namespace is keyed by the schema's prefix, as xmlschema spells it
    code = loaded.field_tree("r").root.child("c:code")
    assert code is not None and code.xml is not None and code.xml.namespace == "urn:c"
    assert code.format == "xsd:token"
    assert loaded.record_validator("r").json_error({"c:code": "A1"}) is None


def test_zip_ambiguous_main_is_invalid() -> None:
    content = _zip({"a.xsd": f"<xs:schema {XS}/>", "b.xsd": f"<xs:schema {XS}/>"})
    with pytest.raises(GenerationError, match=r"main\.xsd"):
        load_schema(content)


def test_zip_without_xsd_is_invalid() -> None:
    with pytest.raises(GenerationError, match=r"no \.xsd"):
        load_schema(_zip({"readme.txt": "hi"}))


def test_zip_include_of_missing_member_is_invalid() -> None:
    content = _zip({"main.xsd": f'<xs:schema {XS}><xs:include schemaLocation="missing.xsd"/>'
                                '<xs:element name="a" type="xs:string"/></xs:schema>'})
    with pytest.raises(GenerationError, match="cannot be read inside the upload"):
        load_schema(content)


def test_repr_of_json_schema_is_json_ready() -> None:
    loaded = load_schema(_bench("customer_order.schema.json"))
    rep = schema_repr(loaded)
    assert rep["root"] == "#" and rep["roots"] == ["#"] and rep["unsupported"] == []
    json.dumps(rep)
    fields = {f["path"]: f for f in rep["fields"]}
    assert fields["amount"] == {
        "path": "amount", "name": "amount", "type": "number", "required": True, "nullable": False,
        "min": 0, "max": 100000, "min_length": None, "max_length": None, "pattern": None, "enum": None,
        "format": None, "min_items": None, "max_items": None, "children": [], "multiple_of": 0.01,
        "inferred_category": "price",
    }
    assert fields["notes"]["nullable"] and not fields["notes"]["required"]
    assert fields["birth_date"]["type"] == "date" and fields["birth_date"]["format"] == "date"
    line_items = fields["line_items"]
    assert (line_items["type"], line_items["min_items"], line_items["max_items"]) == ("array", 1, 5)
    item = line_items["children"][0]
    assert [c["path"] for c in item["children"]] == ["line_items.sku", "line_items.quantity",
                                                      "line_items.unit_price"]


def test_repr_of_xsd_attributes_text_and_unsupported() -> None:
    xsd = f"""<xs:schema {XS}><xs:element name="price"><xs:complexType><xs:simpleContent>
      <xs:extension base="xs:decimal"><xs:attribute name="currency" type="xs:string" use="required"/>
      </xs:extension></xs:simpleContent></xs:complexType></xs:element>
      <xs:element name="doc"><xs:complexType mixed="true"><xs:sequence><xs:element name="b" type="xs:date"
      minOccurs="0"/></xs:sequence></xs:complexType></xs:element></xs:schema>"""
    loaded = load_schema(xsd.encode())
    rep = schema_repr(loaded, "price")
    assert [f["path"] for f in rep["fields"]] == ["@currency", "$"]
    assert rep["fields"][1]["type"] == "number"
    doc = schema_repr(loaded, "doc")
    assert doc["unsupported"][0]["path"] == "" and "mixed content" in doc["unsupported"][0]["reason"]
    json.dumps(doc)
