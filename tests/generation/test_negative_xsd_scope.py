"""What a broken XSD record is validated on (negative/xsd_scope.py): the changed element alone (a
content break's parent, its unchanged children skipped; a verdict remembered per element shape)
must find the errors the whole record's validation finds, at the same places; a record that may
hold an ID, or a content model with a wildcard, is validated whole for content breaks."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from app.generation.negative.engine import attach_negative
from app.generation.negative.xsd_breaker import XsdBreaker
from app.generation.negative.xsd_judge import local_path
from app.generation.negative.xsd_record import parse, places
from app.generation.negative.xsd_scope import CONTENT_KEYWORDS, holds_document_wide
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema

BENCH = Path(__file__).resolve().parents[1] / "fixtures" / "bench" / "customer_order.xsd"


def _breaker(xsd: bytes, name: str, count: int = 12) -> tuple[XsdBreaker, list[str]]:
    loaded = load_schema(xsd, name)
    plan = compile_plan(loaded, [], {"seed": 4}, record_count=count)
    negative = attach_negative(plan, loaded, rate=1.0, formats=("xml",))
    assert negative is not None and isinstance(negative.breaker, XsdBreaker)
    return negative.breaker, list(negative.probe)


def test_judging_the_changed_element_finds_what_the_whole_record_finds() -> None:
    """Every change of every probe record of the bench order (values, xsi:nil, attributes
    dropped; children dropped, copied, a branch left out, at the root and deeper), judged twice
    over so that the second judging reads the remembered verdicts: the changed element's errors,
    their paths taken in the record, are the whole record's errors."""
    breaker, records = _breaker(BENCH.read_bytes(), "customer_order.xsd")
    content = [c for c in breaker.constraints if c.keyword in CONTENT_KEYWORDS]
    assert len(content) > 30 and all(breaker.scopes.scope(c) is not None for c in breaker.constraints)
    compared = broken = 0
    for _round in range(2):
        for record in records[:4]:
            root = parse(record)
            for c in breaker.constraints:
                for place in places(root, tuple(str(s) for s in c.template)):
                    for changed, at, _same in breaker._changes(c, root, place, random.Random(0)):
                        errors, paths = breaker.scopes.errors(c, changed, at)
                        assert paths is not None, "judged on the changed element"
                        whole = list(breaker.element.iter_errors(changed))
                        assert [(local_path(p), e.reason) for p, e in zip(paths, errors, strict=True)] == [
                            (local_path(e.path), e.reason) for e in whole
                        ]
                        compared += 1
                        broken += bool(whole)
    assert compared > 1000 and broken > 1000, (compared, broken)


def test_records_that_may_hold_an_id_or_a_wildcard_are_validated_whole() -> None:
    """An xs:ID attribute anywhere in the record (a copied child may duplicate it), or an
    xs:any in the content, turns the parent-only judging off for content breaks."""
    template = """<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
     <xs:element name="doc"><xs:complexType><xs:sequence>
      <xs:element name="item" maxOccurs="2"><xs:complexType><xs:sequence>
       <xs:element name="v" type="xs:int"/></xs:sequence>{attribute}</xs:complexType></xs:element>
      <xs:element name="note" type="xs:string"/>{wildcard}
     </xs:sequence></xs:complexType></xs:element></xs:schema>"""
    plain = template.format(attribute="", wildcard="")
    with_id = template.format(attribute='<xs:attribute name="key" type="xs:ID"/>', wildcard="")
    with_any = template.format(attribute="", wildcard='<xs:any processContents="skip" minOccurs="0"/>')
    for xsd, whole in ((plain, False), (with_id, True), (with_any, True)):
        breaker, _ = _breaker(xsd.encode(), "doc.xsd", 4)
        assert holds_document_wide(breaker.element) is whole
        content = [c for c in breaker.constraints if c.keyword in CONTENT_KEYWORDS]
        assert content and all((breaker.scopes.scope(c) is None) is whole for c in content)


def test_a_refused_change_is_not_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """xsi:nil on an emptied element whose type refuses "" breaks more than nillable: judged once,
    then only the xsi:nil that keeps the text is tried."""
    xsd = b"""<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
     <xs:element name="doc"><xs:complexType><xs:sequence>
      <xs:element name="code"><xs:simpleType><xs:restriction base="xs:string">
       <xs:minLength value="2"/></xs:restriction></xs:simpleType></xs:element>
     </xs:sequence></xs:complexType></xs:element></xs:schema>"""
    breaker, records = _breaker(xsd, "doc.xsd", 6)
    nillable = next(c for c in breaker.constraints if c.keyword == "nillable")
    emptied: list[bool] = []
    judge = breaker._judged

    def counting(c: Any, root: Any, place: Any) -> Any:
        emptied.append(next(root.iter("code")).text is None)
        return judge(c, root, place)

    monkeypatch.setattr(breaker, "_judged", counting)
    got = [breaker.attempt(nillable, r, random.Random(1)) for r in records]
    assert all(g is not None and "not nillable" in g[2] for g in got)
    assert emptied.count(True) == 1 and emptied.count(False) == len(records)
