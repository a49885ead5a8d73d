"""The cost of one field is bounded (app/generation/limits.py, README: Limits): a quantifier, length
or repetition that would need more than MAX_FIELD_CHARS characters in every record is refused at
upload, naming the field and the limit, before anything is drawn; a constraint rule's pattern or
min_length likewise at that rule; a field at the limit still generates valid records. On both
databases and both stores."""

from __future__ import annotations

import hashlib
import time

import httpx
import orjson
import pytest

from app.core.settings import Settings
from app.core.storage import store_for
from app.generation.limits import MAX_FIELD_CHARS
from tests.api_client import Api
from tests.datasets.flow import download, wait_for

CREATE_SET = ("mutation($input: ConstraintSetCreateInput!) { create_constraint_set(input: $input) "
              "{ constraint_id } }")


def _refused(r: httpx.Response, what: str) -> str:
    assert r.status_code == 422, f"{what}: {r.status_code} {r.text[:300]}"
    detail = r.json()["detail"]
    assert isinstance(detail, str) and detail.endswith("."), f"{what}: {r.text[:300]}"
    return detail


def _graphql_refused(r: httpx.Response, what: str) -> str:
    errors = r.json().get("errors")
    assert r.status_code == 200 and errors, f"{what}: {r.status_code} {r.text[:300]}"
    assert errors[0]["extensions"]["status"] == 422, f"{what}: {r.text[:300]}"
    return str(errors[0]["message"])


def _not_stored(settings: Settings, content: bytes, what: str) -> None:
    with pytest.raises(FileNotFoundError):
        store_for(settings).get_blob(hashlib.sha256(content).hexdigest())
        pytest.fail(f"{what}: the refused upload was stored")


async def test_oversized_schema_fields_are_refused_at_upload(api: Api, settings: Settings) -> None:
    """The two schemas of issue 27: 55 s and 2.6 GB for a 3-record preview, and a 500."""
    _, admin = await api.create_tenant()
    for n in (3_000_000, 999_999_999):
        schema = ('{"type": "object", "required": ["a"], "properties": {"a": {"type": "string", '
                  f'"pattern": "^[a-z]{{{n}}}$"}}}}}}').encode()
        started, cpu = time.monotonic(), time.process_time()
        r = await api.request("POST", "/schemas", admin, files={"file": ("s.json", schema)})
        elapsed, cpu = time.monotonic() - started, time.process_time() - cpu
        detail = _refused(r, f"pattern of {n:,}")
        assert detail.startswith("a: ") and f"{n:,}" in detail and f"{MAX_FIELD_CHARS:,}" in detail, detail
        # refused before anything is drawn: well under a second of this process's CPU (the app's
        # threads), and no probe process drawing meanwhile (wall time, generous for a loaded machine)
        assert cpu < 1.0 and elapsed < 30, (cpu, elapsed)
        _not_stored(settings, schema, f"pattern of {n:,}")
    xsd = ('<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"><xs:element name="r"><xs:complexType>'
           '<xs:sequence><xs:element name="code" maxOccurs="unbounded" minOccurs="600"><xs:simpleType>'
           '<xs:restriction base="xs:string"><xs:length value="7"/></xs:restriction></xs:simpleType>'
           "</xs:element></xs:sequence></xs:complexType></xs:element></xs:schema>")
    r = await api.request("POST", "/schemas", admin, files={"file": ("s.xsd", xsd.encode())})
    detail = _refused(r, "600 codes")
    assert detail.startswith("code: minOccurs 600") and "4,800" in detail, detail
    assert (await api.request("GET", "/schemas", admin)).headers["x-total-count"] == "0"


async def test_oversized_rule_patterns_are_refused_at_the_rule(api: Api) -> None:
    _, admin = await api.create_tenant()
    schema = b'{"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}'
    sid = (await api.call("POST", "/schemas", admin, 201, files={"file": ("s.json", schema)}))["schema_id"]
    cases = [f"^[a-z]{{{MAX_FIELD_CHARS + 1}}}$", "^(ab){3000000}$", "^((x{100}){100}){100}$", "^\\d{999999999,}$",
             "(" * 600 + "a" + ")" * 600]
    for pattern in cases:
        rules = [{"path": "a", "category": "word"}, {"path": "b", "pattern": pattern}]
        r = await api.request("POST", "/constraints", admin, json={"name": "c", "schema_id": sid, "rules": rules})
        assert _refused(r, f"rule pattern {pattern[:40]}").startswith("Rule for 'b': pattern"), r.text
        r = await api.client.post("/graphql", headers=admin.headers, json={"query": CREATE_SET, "variables": {
            "input": {"name": "c", "schema_id": sid, "rules": rules}}})
        assert "Rule for 'b'" in _graphql_refused(r, f"rule pattern {pattern[:40]} (GraphQL)")
    r = await api.request("POST", "/constraints", admin, json={
        "name": "c", "schema_id": sid, "rules": [{"path": "b", "min_length": MAX_FIELD_CHARS + 1}]})
    assert f"{MAX_FIELD_CHARS:,}" in _refused(r, "rule min_length"), r.text
    # a rule on a field every record repeats: the repetitions count (200 rows x 100 characters)
    rows = (b'{"type": "object", "required": ["rows"], "properties": {"rows": {"type": "array", "minItems": 200, '
            b'"items": {"type": "object", "properties": {"code": {"type": "string"}}}}}}')
    rid = (await api.call("POST", "/schemas", admin, 201, files={"file": ("r.json", rows)}))["schema_id"]
    r = await api.request("POST", "/constraints", admin, json={
        "name": "c", "schema_id": rid, "rules": [{"path": "rows.code", "pattern": "^[A-Z]{100}$"}]})
    detail = _refused(r, "rule pattern on a repeated field")
    assert detail.startswith("Rule for 'rows.code'") and "20,000" in detail, detail
    assert (await api.call("GET", "/constraints", admin, 200)) == []
    await api.call("POST", "/constraints", admin, 201, json={
        "name": "c", "schema_id": rid, "rules": [{"path": "rows.code", "pattern": "^[A-Z]{20}$"}]})


async def test_a_field_at_the_limit_generates(api: Api) -> None:
    """Just under the limit: uploaded, previewed and generated, every value valid."""
    _, admin = await api.create_tenant()
    project = await api.create_project(admin)
    width = MAX_FIELD_CHARS
    schema = ('{"type": "object", "required": ["a", "b", "c"], "properties": {'
              f'"a": {{"type": "string", "pattern": "^[a-z]{{{width}}}$"}}, '
              f'"b": {{"type": "string", "minLength": {width - 10}}}, '
              f'"c": {{"type": "array", "minItems": {width // 8}, "items": {{"type": "integer"}}}}}}}}').encode()
    sid = (await api.call("POST", "/schemas", admin, 201, files={"file": ("s.json", schema)}))["schema_id"]
    r = await api.request("POST", f"/schemas/{sid}/preview", admin, json={"count": 3, "format": "json"})
    assert r.status_code == 200, r.text
    records = orjson.loads(r.json()["content"])
    assert len(records) == 3 and all(len(rec["a"]) == width for rec in records)
    ds = await api.call("POST", "/datasets/create", admin, 201, json={
        "name": "wide", "project_id": project["project_id"], "schema_id": sid, "record_count": 50,
        "types": ["ndjson"]})
    done = await wait_for(api, admin, ds["dataset_id"])
    assert done["status"] == "completed", done
    lines = (await download(api, admin, ds["dataset_id"], "ndjson")).content.splitlines()
    rows = [orjson.loads(line) for line in lines]
    assert len(rows) == 50
    assert all(len(row["a"]) == width and row["a"].isalpha() and row["a"].islower() for row in rows)
    assert all(len(row["b"]) >= width - 10 and len(row["c"]) >= width // 8 for row in rows)
