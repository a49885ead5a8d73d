"""Uniqueness where real data has it (issue 17, item 5): emails, usernames, ids, codes and keys
are unique within a dataset by default (`unique: false` turns it off), across shards generated
apart and at 10,000,000 records, from the record index alone; every `xs:ID` of an XML file is
distinct and every `xs:IDREF`/`IDREFS` names an ID of the same file (checked with xmlschema on
the whole file)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import xmlschema

from app.generation.engine.generators import BlockContext, LeafGen, Rows, distinct_generators
from app.generation.plan import compile_plan
from app.generation.rules import parse_rules
from app.generation.schema.loader import load_schema
from app.generation.values.permutation import FeistelPermutation

N = 100_000
DRAFT = "https://json-schema.org/draft/2020-12/schema"
PEOPLE = {
    "$schema": DRAFT,
    "type": "object",
    "required": ["id", "first_name", "last_name", "email", "username", "code", "api_key", "country_code"],
    "properties": {
        "id": {"type": "integer"},
        "first_name": {"type": "string"},
        "last_name": {"type": "string"},
        "email": {"type": "string", "format": "email"},
        "username": {"type": "string"},
        "code": {"type": "string", "minLength": 6, "maxLength": 12},
        "api_key": {"type": "string"},
        "country_code": {"type": "string"},
        "contacts": {
            "type": "array",
            "minItems": 1,
            "maxItems": 4,
            "items": {
                "type": "object",
                "required": ["id", "email"],
                "properties": {"id": {"type": "string"}, "email": {"type": "string", "format": "email"}},
            },
        },
    },
}


def _plan(
    schema: dict[str, Any], rules: list[dict[str, Any]], n: int, params: dict[str, Any] | None = None
) -> Any:
    loaded = load_schema(json.dumps(schema).encode(), "s.json")
    return compile_plan(
        loaded, parse_rules(loaded.field_tree(), rules), {"seed": 3, **(params or {})}, record_count=n
    )


def _records(schema: dict[str, Any], rules: list[dict[str, Any]], n: int = N) -> list[dict[str, Any]]:
    buf = io.BytesIO()
    _plan(schema, rules, n).write("json", buf)
    records: list[dict[str, Any]] = orjson.loads(buf.getvalue())
    return records


def test_emails_usernames_ids_codes_and_keys_are_unique_by_default() -> None:
    records = _records(PEOPLE, [])
    for field in ("id", "email", "username", "code", "api_key"):
        values = [r[field] for r in records]
        assert len(set(values)) == N, (field, N - len(set(values)))
    items = [c for r in records for c in r.get("contacts", [])]
    assert len({c["email"] for c in items}) == len(items) and len({c["id"] for c in items}) == len(items)
    # the unique values still look like what they are
    email = re.compile(r"^[a-z0-9._]+@[a-z0-9.-]+\.[a-z]+$")
    assert all(email.match(r["email"]) for r in records[:1000]), records[0]["email"]
    assert all(6 <= len(r["code"]) <= 12 for r in records)
    # a country code is not an identifier: it repeats
    assert len({r["country_code"] for r in records}) < 1000


def test_unique_false_turns_it_off() -> None:
    records = _records(
        PEOPLE, [{"path": "username", "unique": False}, {"path": "email", "unique": False}], n=50_000
    )
    assert len({r["username"] for r in records}) < 50_000
    assert len({r["email"] for r in records}) < 50_000


def test_too_few_values_draws_freely_instead_of_failing() -> None:
    schema = {
        "$schema": DRAFT,
        "type": "object",
        "required": ["code"],
        "properties": {"code": {"type": "string", "pattern": "^[A-C][0-9]$"}},
    }
    records = _records(schema, [], n=5_000)
    assert {r["code"] for r in records} <= {f"{a}{d}" for a in "ABC" for d in range(10)}


def test_a_patterned_email_is_unique_by_default_when_suffixed_addresses_match() -> None:
    # the bench XSD's EmailType: before, a pattern switched the default off (84,509 of 100,000 distinct)
    pattern = r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$"
    schema = {
        "$schema": DRAFT,
        "type": "object",
        "required": ["email", "code"],
        "properties": {
            "email": {"type": "string", "pattern": pattern},
            # a suffix cannot meet this pattern: the default yields, values are drawn freely
            "code": {"type": "string", "pattern": "^[A-Z]{2}[0-9]{3}$"},
        },
    }
    records = _records(schema, [], n=50_000)
    emails = [r["email"] for r in records]
    assert len(set(emails)) == 50_000
    assert all(re.match(pattern, e) for e in emails)
    assert all(re.match("^[A-Z]{2}[0-9]{3}$", r["code"]) for r in records)


def test_unique_across_shards_generated_apart() -> None:
    whole = _plan(PEOPLE, [], N)
    emails: list[str] = []
    for start, stop in whole.shard_ranges(4):
        # each shard compiled on its own, as a worker process would
        emails.extend(r["email"] for r in _plan(PEOPLE, [], N).records(start, stop))
    assert len(emails) == N and len(set(emails)) == N
    assert emails == [r["email"] for r in whole.records()]


def _leaf(plan: Any, path: str) -> LeafGen:
    return next(g for g in distinct_generators(plan.gen) if isinstance(g, LeafGen) and g.node.path == path)


def test_unique_at_ten_million_records() -> None:
    n = 10_000_000
    # the bijection behind every unique column, over the whole key space
    keys = FeistelPermutation(n, 12345)(np.arange(n, dtype=np.uint64))
    assert keys.shape == (n,) and keys.min() == 0 and keys.max() == n - 1
    # n keys in [0, n) that leave no slot unmarked are n distinct keys: a permutation (np.unique's
    # sort took 33 of the test's 34 CPU seconds here; the mask takes 0.1)
    seen = np.zeros(n, dtype=bool)
    seen[keys] = True
    assert seen.all()
    # emails of records far apart in a 10,000,000-record dataset (its first, middle and last
    # 50,000 records, as three shards would draw them)
    plan = _plan(PEOPLE, [], n)
    leaf = _leaf(plan, "email")
    emails: list[str] = []
    for start in (0, n // 2, n - 50_000):
        rows = Rows(50_000, np.arange(start, start + 50_000, dtype=np.int64), n)
        emails.extend(leaf.generate(BlockContext(3, start // 4096, "en_US"), rows, None).values)
    assert len(set(emails)) == len(emails) == 150_000


XSD = """<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="library">
    <xs:complexType><xs:sequence>
      <xs:element name="book" maxOccurs="unbounded">
        <xs:complexType>
          <xs:sequence>
            <xs:element name="title" type="xs:string"/>
            <xs:element name="author" maxOccurs="3">
              <xs:complexType>
                <xs:attribute name="key" type="xs:ID" use="required"/>
                <xs:attribute name="name" type="xs:string"/>
              </xs:complexType>
            </xs:element>
            <xs:element name="chapter" minOccurs="0" maxOccurs="4">
              <xs:complexType>
                <xs:attribute name="id" type="xs:ID" use="required"/>
                <xs:attribute name="see" type="xs:IDREF"/>
              </xs:complexType>
            </xs:element>
          </xs:sequence>
          <xs:attribute name="id" type="xs:ID" use="required"/>
          <xs:attribute name="related" type="xs:IDREFS"/>
          <xs:attribute name="editor" type="xs:IDREF"/>
        </xs:complexType>
      </xs:element>
    </xs:sequence></xs:complexType>
  </xs:element>
</xs:schema>
"""


def test_xsd_ids_are_distinct_and_idrefs_resolve_in_each_file(tmp_path: Path) -> None:
    loaded = load_schema(XSD.encode(), "library.xsd")
    plan = compile_plan(loaded, [], {"seed": 8, "records_per_file": 25_000}, record_count=N)
    schema = xmlschema.XMLSchema(XSD)
    ids_seen_in_files = 0
    for index, (start, stop) in enumerate(plan.file_ranges()):
        buf = io.BytesIO()
        plan.write_file("xml", buf, index)
        text = buf.getvalue().decode()
        assert text.count("<book ") == stop - start
        ids = re.findall(r' (?:id|key)="([^"]+)"', text)
        refs = [v for group in re.findall(r' (?:see|editor|related)="([^"]+)"', text) for v in group.split()]
        assert len(ids) == len(set(ids)), "duplicate xs:ID"
        assert refs and set(refs) <= set(ids), "an IDREF names no ID of this file"
        ids_seen_in_files += len(ids)
        # the whole file as one document of the schema's container element: xmlschema checks
        # ID uniqueness and IDREF resolution across all its records
        whole = text.replace("<records>", "<library>").replace("</records>", "</library>")
        errors = [str(e.reason) for e in schema.iter_errors(whole)][:3]
        assert not errors, errors
    assert ids_seen_in_files > N
