"""Preview: the first records of a schema before anything is generated, over GraphQL and the REST
row, valid against the schema and byte-identical to a dataset (and to `tdg generate`) with the
same inputs; bad inputs are 422 with a sentence, other tenants' schemas 404."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import jsonschema
import xmlschema

from app.generation.cli import generate
from app.rest.operations import op
from tests.api_client import Actor, Api
from tests.datasets.flow import ORDER_JSON, ORDER_XSD, create_dataset, download, upload_schema, wait_for
from tests.paths import BENCH

RULES = [{"path": "amount", "min": 10, "max": 20}, {"path": "status", "enum": ["paid", "shipped"]}]
FIELDS = "schema_id format media_type count seed content elapsed_ms labels { record pointer keyword schema_pointer rule detail }"


async def _preview(api: Api, actor: Actor, schema_id: int, **args: Any) -> dict[str, Any]:
    return (await api.gql_data(op("Preview").document, {"schema_id": schema_id, **args}, actor))["preview"]


async def _error(api: Api, actor: Actor, schema_id: int, **args: Any) -> tuple[int, str]:
    body = await api.graphql(op("Preview").document, {"schema_id": schema_id, **args}, actor)
    assert body.get("errors"), body
    error = body["errors"][0]
    return error["extensions"]["status"], error["message"]


async def _setup(api: Api) -> tuple[Actor, dict[str, Any]]:
    _, admin = await api.create_tenant()
    schema = await upload_schema(api, admin, ORDER_JSON, "customer_order.schema.json")
    return admin, schema


async def test_json_preview_is_valid_and_reproducible_over_graphql_and_rest(api: Api) -> None:
    admin, schema = await _setup(api)
    sid = schema["schema_id"]
    tester = await api.create_user(admin, "Tester")  # reading a schema needs only the tenant
    first = await _preview(api, tester, sid, count=100)
    assert (first["schema_id"], first["format"], first["media_type"], first["count"]) == (
        sid, "json", "application/json", 100)
    assert 0 <= first["seed"] < 2**31 and first["elapsed_ms"] > 0
    records = json.loads(first["content"])
    assert len(records) == 100
    doc = json.loads(ORDER_JSON)
    validator = jsonschema.validators.validator_for(doc)(doc, format_checker=jsonschema.FormatChecker())
    assert not validator.is_valid({**records[0], "uuid": "not-a-uuid"})  # formats really are checked
    for i, record in enumerate(records):
        errors = [e.message for e in validator.iter_errors(record)]
        assert not errors, f"record {i + 1}: {errors[:3]}"

    # the reported seed reproduces the content, over GraphQL and over the REST row alike
    again = await _preview(api, admin, sid, count=100, params={"seed": first["seed"]})
    assert again["content"] == first["content"]
    rest = await api.call("POST", f"/schemas/{sid}/preview", tester, 200,
                          json={"count": 100, "params": {"seed": first["seed"]}})
    assert {k: v for k, v in rest.items() if k != "elapsed_ms"} == {k: v for k, v in first.items() if k != "elapsed_ms"}
    # the REST body's keys are optional: {} is ten JSON records; an unknown key is refused
    default = await api.call("POST", f"/schemas/{sid}/preview", tester, 200, json={})
    assert default["count"] == 10 and default["format"] == "json" and len(json.loads(default["content"])) == 10
    await api.call("POST", f"/schemas/{sid}/preview", tester, 422, json={"rows": 5})
    # nothing is stored: no dataset appears
    assert await api.call("GET", "/datasets", admin, 200) == []


async def test_preview_equals_a_dataset_and_the_cli_with_the_same_inputs(api: Api, tmp_path: Path) -> None:
    admin, schema = await _setup(api)
    sid = schema["schema_id"]
    project = await api.create_project(admin, "preview parity")
    rules = await api.call("POST", "/constraints", admin, 201, json={"name": "r", "schema_id": sid, "rules": RULES})
    params = {"seed": 424242, "locale": "de_DE"}
    shown = {}
    for fmt in ("csv", "ndjson"):
        shown[fmt] = await _preview(api, admin, sid, count=40, format=fmt, params=params,
                                    constraint_set_id=rules["constraint_id"])
    assert shown["csv"]["media_type"].startswith("text/csv")
    assert all(json.loads(line)["status"] in ("paid", "shipped") for line in shown["ndjson"]["content"].splitlines())

    dataset = await create_dataset(api, admin, project["project_id"], sid, 40, types=["csv", "ndjson"],
                                   params=params, constraint_set_id=rules["constraint_id"])
    assert (await wait_for(api, admin, dataset["dataset_id"]))["status"] == "completed"
    rules_file = tmp_path / "rules.json"
    rules_file.write_text(json.dumps(RULES))
    for fmt, result in shown.items():
        served = (await download(api, admin, dataset["dataset_id"], fmt)).content
        assert result["content"].encode() == served, fmt
        shell = io.BytesIO()
        generate(BENCH / "customer_order.schema.json", 40, fmt, "-", constraints=rules_file, seed=424242,
                 locale="de_DE", stdout=shell)
        assert shell.getvalue() == served, fmt


async def test_xsd_preview_validates_with_xmlschema(api: Api) -> None:
    _, admin = await api.create_tenant()
    schema = await upload_schema(api, admin, ORDER_XSD, "customer_order.xsd")
    result = await _preview(api, admin, schema["schema_id"], count=15, format="xml",
                            params={"seed": 3, "root": "customer_orders/customer_order"})
    assert result["media_type"] == "application/xml"
    container = ElementTree.fromstring(result["content"].encode())
    assert len(container) == 15
    xsd = xmlschema.XMLSchema(ORDER_XSD.decode())
    for i, element in enumerate(container):
        doc = "<customer_orders>" + ElementTree.tostring(element).decode() + "</customer_orders>"
        errors = [str(e.reason) for e in xsd.iter_errors(doc)]
        assert not errors, f"XML record {i + 1}: {errors[:2]}"


async def test_invalid_inputs_are_422_with_a_sentence(api: Api) -> None:
    admin, schema = await _setup(api)
    sid = schema["schema_id"]
    other = await upload_schema(api, admin, ORDER_JSON, "second.schema.json")
    foreign = await api.call("POST", "/constraints", admin, 201, json={
        "name": "other's", "schema_id": other["schema_id"], "rules": RULES})
    cases: list[tuple[dict[str, Any], str]] = [
        ({"count": 0}, "count must be between 1 and 100."),
        ({"count": 101}, "count must be between 1 and 100."),
        ({"format": "yaml"}, "Unknown format 'yaml'; use csv, json, xml, sql or ndjson."),
        ({"constraint_set_id": foreign["constraint_id"]},
         f"Constraint set {foreign['constraint_id']} belongs to schema {other['schema_id']}, not to schema {sid}."),
        ({"params": {"colour": "red"}}, "Unknown params: colour."),
        ({"params": {"deferred": "yes"}}, "params.deferred must be true or false."),
        ({"params": {"seed": 2**40}}, "params.seed must be below 2^31 (2,147,483,648) for a preview."),
        ({"params": [1, 2]}, "params must be a JSON object."),
    ]
    for args, message in cases:
        assert await _error(api, admin, sid, **args) == (422, message), args
    # the same params are refused by dataset creation with the same sentence
    project = await api.create_project(admin, "p")
    refused = await create_dataset(api, admin, project["project_id"], sid, 5, status=422,
                                   params={"colour": "red"})
    assert refused["detail"] == "Unknown params: colour."
    refused = await create_dataset(api, admin, project["project_id"], sid, 5, status=422,
                                   params={"xml_layout": "zip"})
    assert refused["detail"].startswith("params.xml_layout must be 'container'")
    r = await api.request("POST", f"/schemas/{sid}/preview", admin, json={"count": 101})
    assert r.status_code == 422 and r.json()["detail"] == "count must be between 1 and 100."


async def test_an_unsatisfiable_schema_is_422_with_the_engines_reason(api: Api) -> None:
    _, admin = await api.create_tenant()
    doc = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": ["broken_field"],
           "properties": {"broken_field": {"type": "string", "minLength": 10, "maxLength": 5}}}
    schema = await upload_schema(api, admin, json.dumps(doc).encode(), "broken.json")
    status, message = await _error(api, admin, schema["schema_id"])
    assert status == 422 and "broken_field" in message and "minLength 10 is greater than maxLength 5" in message


async def test_other_tenants_schemas_and_constraint_sets_are_404(api: Api) -> None:
    admin, schema = await _setup(api)
    rules = await api.call("POST", "/constraints", admin, 201, json={
        "name": "r", "schema_id": schema["schema_id"], "rules": RULES})
    _, other_admin = await api.create_tenant()
    outsider = await api.create_user(other_admin, "Tester")
    own = await upload_schema(api, outsider, ORDER_JSON, "mine.schema.json")
    sid = schema["schema_id"]
    assert await _error(api, outsider, sid) == (404, f"Schema {sid} was not found.")
    r = await api.request("POST", f"/schemas/{sid}/preview", outsider, json={"count": 3})
    assert r.status_code == 404 and r.json()["detail"] == f"Schema {sid} was not found."
    cid = rules["constraint_id"]
    assert await _error(api, outsider, own["schema_id"], constraint_set_id=cid) == (
        404, f"Constraint set {cid} was not found.")
    assert (await api.request("POST", "/schemas/999999/preview", outsider, json={})).status_code == 404


async def test_unsaved_rules_apply_instead_of_the_sets(api: Api) -> None:
    """The constraint editor's live preview: rules not yet saved, over GraphQL and REST alike; a bad
    rule is 422 naming its path (the editor shows it at that rule)."""
    admin, schema = await _setup(api)
    sid = schema["schema_id"]
    saved = await api.call("POST", "/constraints", admin, 201, json={"name": "saved", "schema_id": sid,
                                                                   "rules": RULES})
    unsaved = [{"path": "status", "enum": ["cancelled"]}, {"path": "amount", "min": 1, "max": 2}]
    got = await _preview(api, admin, sid, constraint_set_id=saved["constraint_id"], rules=unsaved, count=20,
                         params={"seed": 5})
    records = json.loads(got["content"])
    assert {r["status"] for r in records} == {"cancelled"}
    assert all(1 <= r["amount"] <= 2 for r in records)
    rest = await api.call("POST", f"/schemas/{sid}/preview", admin, 200,
                          json={"rules": unsaved, "count": 20, "params": {"seed": 5}})
    assert rest["content"] == got["content"]
    # an empty list is no rules at all, not the set's
    bare = json.loads((await _preview(api, admin, sid, constraint_set_id=saved["constraint_id"], rules=[],
                                      count=30, params={"seed": 5}))["content"])
    assert {r["status"] for r in bare} - {"paid", "shipped"}

    status, message = await _error(api, admin, sid, rules=[{"path": "amount", "min": 5, "max": 1}])
    assert status == 422 and "amount" in message, message
    status, message = await _error(api, admin, sid, rules=[{"path": "nope", "min": 1}])
    assert status == 422 and "nope" in message, message
    status, message = await _error(api, admin, sid, rules={"path": "amount"})
    assert (status, message) == (422, "rules must be a list of rule objects.")
