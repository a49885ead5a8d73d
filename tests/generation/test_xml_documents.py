"""`params.xml_layout` (issue 32 item 4): "documents" writes one XML document per record, each
valid against the XSD as a whole file; "container" (the default) keeps every record in one
`<records>` element. The CLI writes the documents into a folder (`--xml-layout documents`)."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree import ElementTree

import pytest
import xmlschema

from app.generation.cli import generate
from app.generation.errors import ParamsError
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from tests.paths import REPO

BENCH_XSD = REPO / "tests" / "fixtures" / "bench" / "customer_order.xsd"
# a namespaced global element with attributes, a nillable element, a list and a choice
NS_XSD = b"""<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:t="urn:tdg:test:contact"
           targetNamespace="urn:tdg:test:contact" elementFormDefault="qualified">
  <xs:element name="contact">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="name" type="xs:string"/>
        <xs:element name="phone" type="xs:string" maxOccurs="3"/>
        <xs:element name="nickname" type="xs:string" nillable="true"/>
        <xs:element name="tags" type="t:tagList"/>
        <xs:choice>
          <xs:element name="email" type="xs:string"/>
          <xs:element name="fax" type="xs:string"/>
        </xs:choice>
        <xs:element name="country">
          <xs:simpleType>
            <xs:restriction base="xs:string">
              <xs:enumeration value="DE"/><xs:enumeration value="FR"/><xs:enumeration value="US"/>
            </xs:restriction>
          </xs:simpleType>
        </xs:element>
      </xs:sequence>
      <xs:attribute name="id" type="xs:positiveInteger" use="required"/>
    </xs:complexType>
  </xs:element>
  <xs:simpleType name="tagList"><xs:list itemType="xs:NCName"/></xs:simpleType>
</xs:schema>
"""


def _validate_all(xsd: xmlschema.XMLSchema, docs: list[bytes]) -> None:
    for doc in docs:
        assert doc.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n')
        xsd.validate(doc.decode())  # the whole file, as a user's validator reads it


def test_every_document_validates_as_a_file() -> None:
    loaded = load_schema(NS_XSD, "contact.xsd")
    plan = compile_plan(loaded, [], {"seed": 5, "xml_layout": "documents"}, record_count=300)
    docs = list(plan.xml_documents())
    assert len(docs) == 300 and len(set(docs)) == 300
    _validate_all(xmlschema.XMLSchema(NS_XSD.decode()), docs)
    # the container layout holds the same records, one per line, inside <records>
    container = compile_plan(loaded, [], {"seed": 5}, record_count=300)
    lines = container_lines(container)
    assert [d.split(b"\n", 1)[1].rstrip(b"\n") for d in docs] == lines


def container_lines(plan: object) -> list[bytes]:
    import io

    buf = io.BytesIO()
    plan.write("xml", buf)  # type: ignore[attr-defined]
    body = buf.getvalue().split(b"\n")
    assert body[1] == b"<records>" and body[-2] == b"</records>"
    return body[2:-2]


def test_the_cli_writes_one_file_per_record_into_a_folder(tmp_path: Path) -> None:
    out = tmp_path / "orders"
    _plan, paths = generate(
        BENCH_XSD, 25, "xml", str(out), seed=9, root="customer_orders", xml_layout="documents"
    )
    assert [p.name for p in paths] == [f"customer_orders-{i:04d}.xml" for i in range(1, 26)]
    assert sorted(out.iterdir()) == paths
    _validate_all(xmlschema.XMLSchema(str(BENCH_XSD)), [p.read_bytes() for p in paths])


def test_a_record_element_declared_inside_another_is_refused_for_documents(tmp_path: Path) -> None:
    with pytest.raises(ParamsError, match="choose the root 'customer_orders'"):
        generate(
            BENCH_XSD,
            5,
            "xml",
            str(tmp_path / "x"),
            root="customer_orders/customer_order",
            xml_layout="documents",
        )
    with pytest.raises(ParamsError, match="folder, not stdout"):
        generate(BENCH_XSD, 5, "xml", "-", root="customer_orders", xml_layout="documents")
    with pytest.raises(ParamsError, match="XML output only"):
        generate(BENCH_XSD, 5, "json", str(tmp_path / "y"), root="customer_orders", xml_layout="documents")
    loaded = load_schema(NS_XSD, "contact.xsd")
    with pytest.raises(ParamsError, match=r"params\.xml_layout must be"):
        compile_plan(loaded, [], {"seed": 1, "xml_layout": "files"}, record_count=2)


def test_json_schema_records_are_well_formed_documents_too() -> None:
    schema = {
        "type": "object",
        "required": ["a", "b"],
        "properties": {"a": {"type": "string"}, "b": {"type": "array", "items": {"type": "integer"}}},
    }
    loaded = load_schema(json.dumps(schema).encode(), "s.json")
    docs = list(
        compile_plan(loaded, [], {"seed": 2, "xml_layout": "documents"}, record_count=20).xml_documents()
    )
    assert all(ElementTree.fromstring(d).tag == "record" for d in docs)


def test_documents_stream_splits_and_zips_whole_at_any_chunk_size() -> None:
    """A dataset's XML in the documents layout is the documents one after another (its shards'
    parts joined end to end); split at every declaration whatever the chunks, each zip entry is
    one document, valid against the XSD as a file."""
    import io
    import random
    import zipfile

    from app.generation.xml_documents import split_documents, zip_documents

    loaded = load_schema(NS_XSD, "contact.xsd")
    plan = compile_plan(loaded, [], {"seed": 11, "xml_layout": "documents"}, record_count=120)
    stream = io.BytesIO()
    plan.write("xml", stream)  # the writer of the layout: no container, documents in a row
    blob = stream.getvalue()
    assert not blob.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<records>')
    expected = list(plan.xml_documents())
    assert blob == b"".join(expected)
    rng = random.Random(5)
    for size in (1, 7, 39, 40, 41, 4096, len(blob)):
        chunks = [blob[i:i + size] for i in range(0, len(blob), size)]
        assert list(split_documents(chunks)) == expected, size
    cuts = sorted(rng.sample(range(1, len(blob)), 50))
    chunks = [blob[a:b] for a, b in zip([0, *cuts], [*cuts, len(blob)], strict=True)]
    assert list(split_documents(chunks)) == expected

    class WriteOnly:  # the store's sinks only write
        def __init__(self) -> None:
            self.buf = io.BytesIO()

        def write(self, data: bytes) -> int:
            return self.buf.write(data)

    sink = WriteOnly()
    assert zip_documents(split_documents([blob]), sink, stem="contact", first=100, count=220) == 120
    xsd = xmlschema.XMLSchema(NS_XSD.decode())
    with zipfile.ZipFile(io.BytesIO(sink.buf.getvalue())) as zf:
        names = zf.namelist()
        assert names[0] == "contact-0101.xml" and names[-1] == "contact-0220.xml"
        for name, doc in zip(names, expected, strict=True):
            assert zf.read(name) == doc
            xsd.validate(doc.decode())
    with pytest.raises(ValueError, match="does not start with the XML declaration"):
        list(split_documents([b"<records>"]))
