"""Negative records of XSDs we did not design (tests/corpus/xsd: ISO 20022, metalink, NcML,
CycloneDX, Factur-X, ...). 20 records at invalid rate 1 each, every label checked by xmlschema
(the schema loaded by xmlschema itself from the corpus files, not through the app): errors only
at the labelled location, the labelled keyword among them; a mixed run has exactly round(N x R)
labels and every other record valid. Each record (a child of the `<records>` container) is
validated as a document of its own, so that xmlschema checks its xs:ID values are unique and its
IDREFs found; a local record element (a container's item) by its declaration."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import xmlschema
from xmlschema.namespaces import NamespaceMapper
from xmlschema.validators.validation import ValidationContext

from app.generation.cli import generate
from app.generation.errors import ParamsError
from app.generation.negative.engine import attach_negative
from app.generation.negative.xsd_judge import judge_xsd
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from tests.generation.test_corpus import _upload

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
ENTRIES = {e["id"]: e for e in json.loads((CORPUS / "manifest.json").read_text()) if e["type"] == "xsd"}
SCHEMAS = [
    "iso20022-pain.001.001.03",
    "iso20022-pain.008.001.02",
    "metalink-3.0",
    "metalink-4.0",
    "ncml-2.2",
    "collection",
    "cyclonedx-bom-1.4-xsd-npm",
    "facturx-basic",
]


def reference_schema(entry: dict[str, Any]) -> Any:
    """xmlschema's own reading of the corpus files (every import from a corpus file)."""
    cls = xmlschema.XMLSchema11 if entry["version"] == "1.1" else xmlschema.XMLSchema10
    locations = [(ns, str(CORPUS / path)) for ns, path in (entry.get("locations") or {}).items()]
    return cls(str(CORPUS / entry["path"]), allow="local", use_fallback=False, locations=locations or None)


def run(entry_id: str, count: int, rate: float, seed: int = 5) -> tuple[list[ET.Element], list[dict[str, Any]], Any]:
    """(the records as elements, the labels, the plan) of an xml run with `rate` invalid records."""
    entry = ENTRIES[entry_id]
    loaded = load_schema(_upload(entry), Path(entry["path"]).name if len(entry["files"]) == 1 else "schema.zip")
    plan = compile_plan(loaded, [], {"seed": seed}, record_count=count)
    attach_negative(plan, loaded, rate=rate, formats=("xml",))
    out, labels = io.BytesIO(), io.BytesIO()
    plan.write("xml", out, labels=labels)
    records = list(ET.fromstring(out.getvalue()))
    return records, [json.loads(line) for line in labels.getvalue().splitlines()], plan


def declaration(schema: Any, record: ET.Element) -> Any:
    """The record's global element, or a local one (a container's item record, as `collection`'s)."""
    element = next((e for e in schema.maps.elements.values() if e.name == record.tag), None) or next(
        (e for e in schema.iter_components(xmlschema.XsdElement) if e.name == record.tag), None
    )
    assert element is not None, f"no global element {record.tag}"
    return element


def record_errors(schema: Any, record: ET.Element) -> list[Any]:
    """xmlschema's errors of `record` as a document (a declaration's own validation counts no
    xs:ID). A local record element (no document can have it as root) is decoded by its
    declaration in a context that counts IDs, as XMLSchema.iter_errors makes one."""
    element = declaration(schema, record)
    if element.is_global():
        return list(schema.iter_errors(record))
    source = schema.maps.settings.get_resource_from_data(record, element.tag)
    context = ValidationContext(source=source, converter=NamespaceMapper(None, source=source), check_identities=True)
    element.raw_decode(record, "lax", context)
    return list(context.errors)


def check_labels(schema: Any, records: list[ET.Element], labels: list[dict[str, Any]]) -> None:
    by_record = {label["record"]: label for label in labels}
    assert len(by_record) == len(labels), "one label per invalid record"
    for i, record in enumerate(records):
        errors = record_errors(schema, record)
        label = by_record.get(i)
        if label is None:
            assert not errors, f"record {i} is unlabelled but invalid: {errors[0].reason}"
            continue
        assert set(label) == {"record", "pointer", "keyword", "schema_pointer", "rule", "detail"}
        assert label["rule"] is None
        reason, _ = judge_xsd(errors, label["pointer"], label["keyword"])
        assert reason is None, f"record {i} {label}: {reason}"
        assert label["schema_pointer"].endswith("/" + label["keyword"])


@pytest.mark.parametrize("entry_id", SCHEMAS)
def test_corpus_xsds_break_one_constraint_each(entry_id: str) -> None:
    records, labels, _plan = run(entry_id, 20, 1.0)
    assert len(records) == 20 and len(labels) == 20
    check_labels(reference_schema(ENTRIES[entry_id]), records, labels)
    assert len({label["schema_pointer"] for label in labels}) > 3, "violations spread over the schema"


def test_mixed_run_has_exactly_the_invalid_count() -> None:
    """Rate 0.1 of 1,000 records: exactly 100 labels, the other 900 records valid."""
    records, labels, _plan = run("metalink-3.0", 1000, 0.1, seed=11)
    assert len(records) == 1000 and len(labels) == 100
    check_labels(reference_schema(ENTRIES["metalink-3.0"]), records, labels)
    keywords = {label["keyword"] for label in labels}
    assert len(keywords) >= 4, keywords


def _signatures(keyword: str) -> tuple[list[ET.Element], list[dict[str, Any]]]:
    """60 XML Signature records at invalid rate 1, `keyword` alone, their labels checked."""
    entry = ENTRIES["xmldsig-core"]
    loaded = load_schema(_upload(entry), Path(entry["path"]).name)
    plan = compile_plan(loaded, [], {"seed": 7, "root": "Signature"}, record_count=60)
    attach_negative(plan, loaded, rate=1.0, keywords=[keyword], formats=("xml",))
    out, labels = io.BytesIO(), io.BytesIO()
    plan.write("xml", out, labels=labels)
    got = [json.loads(line) for line in labels.getvalue().splitlines()]
    records = list(ET.fromstring(out.getvalue()))
    check_labels(reference_schema(entry), records, got)
    assert len(got) == 60
    return records, got


def test_copies_of_elements_holding_an_id_get_new_ids() -> None:
    """XML Signature's elements carry `Id` attributes (xs:ID): a maxOccurs break copies an
    element, and the copy's IDs are renewed, so the record breaks maxOccurs and nothing else
    (72 of 300 records repeated an ID when copies kept theirs)."""
    records, got = _signatures("maxOccurs")
    assert "/Signature/SignedInfo/maxOccurs" in {label["schema_pointer"] for label in got}  # it has an Id
    assert any(re.search(r'Id="[^"]+-c1"', ET.tostring(r, encoding="unicode")) for r in records)


def test_an_id_repeats_an_earlier_one() -> None:
    """`ID`: one xs:ID value of the record set to an earlier one's, labelled where xmlschema
    reports the repeat, spread over the ID attributes that have one before them."""
    _records, got = _signatures("ID")
    assert {label["keyword"] for label in got} == {"ID"}
    assert all("duplicated xs:ID value" in label["detail"] for label in got)
    pointers = {label["schema_pointer"] for label in got}
    assert len(pointers) >= 4 and "/Signature/@Id/ID" not in pointers, pointers  # the root's is first


def test_same_bytes_whatever_the_cut() -> None:
    """The file and the labels are the same whether written at once or in pieces (as shards do)."""
    entry = ENTRIES["ncml-2.2"]
    loaded = load_schema(_upload(entry), Path(entry["path"]).name)

    def write(pieces: list[tuple[int, int]], chunk: int = 4096) -> tuple[bytes, bytes]:
        plan = compile_plan(loaded, [], {"seed": 3}, record_count=60)
        attach_negative(plan, loaded, rate=0.5, formats=("xml",))
        out, labels = io.BytesIO(), io.BytesIO()
        for k, (a, b) in enumerate(pieces):
            plan.write(
                "xml", out, a, b, header=k == 0, footer=k == len(pieces) - 1, labels=labels, chunk_size=chunk
            )
        return out.getvalue(), labels.getvalue()

    whole = write([(0, 60)])
    assert whole == write([(0, 7), (7, 33), (33, 60)], chunk=5)
    assert len(whole[1].splitlines()) == 30


def test_each_keyword_of_a_small_schema_is_broken() -> None:
    """Facets, the type, occurrences, a required attribute, a choice, fixed and nillable: each
    keyword asked for alone (`keywords`) gives records xmlschema judges as that break alone."""
    xsd = b"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:t"
      xmlns="urn:t" elementFormDefault="qualified">
     <xs:element name="policy"><xs:complexType><xs:sequence>
      <xs:element name="holder" minOccurs="1" maxOccurs="2"><xs:complexType><xs:sequence>
       <xs:element name="name"><xs:simpleType><xs:restriction base="xs:string">
        <xs:minLength value="2"/><xs:maxLength value="8"/><xs:pattern value="[a-z]+"/>
       </xs:restriction></xs:simpleType></xs:element>
       <xs:element name="code"><xs:simpleType><xs:restriction base="xs:string">
        <xs:length value="3"/><xs:pattern value="[a-z]+"/>
       </xs:restriction></xs:simpleType></xs:element>
      </xs:sequence></xs:complexType></xs:element>
      <xs:choice><xs:element name="a" type="xs:string"/><xs:element name="b" type="xs:string"/></xs:choice>
      <xs:element name="premium"><xs:simpleType><xs:restriction base="xs:decimal">
       <xs:totalDigits value="5"/><xs:fractionDigits value="2"/>
       <xs:minInclusive value="1"/><xs:maxExclusive value="5000"/>
      </xs:restriction></xs:simpleType></xs:element>
      <xs:element name="rate"><xs:simpleType><xs:restriction base="xs:int">
       <xs:minExclusive value="0"/><xs:maxInclusive value="90"/>
      </xs:restriction></xs:simpleType></xs:element>
      <xs:element name="version" type="xs:string" fixed="1.0"/>
     </xs:sequence>
     <xs:attribute name="channel" use="required"><xs:simpleType><xs:restriction base="xs:string">
      <xs:enumeration value="web"/><xs:enumeration value="phone"/></xs:restriction></xs:simpleType>
     </xs:attribute>
     </xs:complexType></xs:element></xs:schema>"""
    loaded = load_schema(xsd, "policy.xsd")
    schema = xmlschema.XMLSchema10(xsd.decode())
    every = [
        *("pattern", "enumeration", "length", "minLength", "maxLength", "minInclusive", "maxExclusive"),
        *("minExclusive", "maxInclusive", "totalDigits", "fractionDigits", "type", "minOccurs"),
        *("maxOccurs", "choice", "use", "fixed", "nillable"),
    ]
    for keyword in every:
        plan = compile_plan(loaded, [], {"seed": 2}, record_count=6)
        attach_negative(plan, loaded, rate=1.0, keywords=[keyword], formats=("xml",))
        out, labels = io.BytesIO(), io.BytesIO()
        plan.write("xml", out, labels=labels)
        got = [json.loads(line) for line in labels.getvalue().splitlines()]
        assert {label["keyword"] for label in got} == {keyword}
        check_labels(schema, list(ET.fromstring(out.getvalue())), got)


def test_command_line_same_records_whatever_the_files_and_jobs(tmp_path: Path) -> None:
    """`tdg generate` on an XSD with --invalid-rate: one file, or files of 40 written by two
    processes, hold the same records and the same labels; formats other than xml are refused."""
    xsd = Path(__file__).resolve().parents[1] / "fixtures" / "bench" / "customer_order.xsd"
    one = tmp_path / "orders.xml"
    generate(xsd, 120, "xml", str(one), seed=9, invalid_rate=0.25)
    labels = (tmp_path / "orders.xml.labels.ndjson").read_bytes()
    split = tmp_path / "split.xml"
    _plan, paths = generate(xsd, 120, "xml", str(split), seed=9, invalid_rate=0.25, records_per_file=40, jobs=2)
    assert (tmp_path / "split.xml.labels.ndjson").read_bytes() == labels
    whole = [ET.tostring(r) for r in ET.fromstring(one.read_bytes())]
    assert [ET.tostring(r) for p in paths for r in ET.fromstring(p.read_bytes())] == whole
    records = list(ET.fromstring(one.read_bytes()))
    got = [json.loads(line) for line in labels.splitlines()]
    assert len(got) == 30
    check_labels(xmlschema.XMLSchema10(str(xsd)), records, got)
    with pytest.raises(ParamsError, match="written as xml"):
        generate(xsd, 10, "ndjson", str(tmp_path / "o.ndjson"), seed=9, invalid_rate=0.25)
