"""params.coverage on datasets (issue 31 item 5): a dataset's first records are the coverage set,
then random valid records; a record_count below the set's size is 422 naming the size needed; the
preview starts with the set too. The records are scanned here for the schema's enum values."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from tests.api_client import Api
from tests.datasets.flow import create_dataset, download, upload_schema, wait_for

ANGULAR = (Path(__file__).resolve().parents[1] / "corpus" / "json" / "angular-component.json").read_bytes()


async def test_coverage_dataset_and_preview(api: Api) -> None:
    _, admin = await api.create_tenant()
    project = (await api.create_project(admin, "Coverage"))["project_id"]
    schema_id = (await upload_schema(api, admin, ANGULAR, "angular-component.json"))["schema_id"]
    schema = json.loads(ANGULAR)

    small = await create_dataset(api, admin, project, schema_id, 2, 422, types=["json"],
                                 params={"seed": 5, "coverage": "each"})
    assert "coverage set" in small["detail"] and "at least 6 records" in small["detail"], small
    bad = await create_dataset(api, admin, project, schema_id, 20, 422, types=["json"],
                               params={"coverage": "all"})
    assert "params.coverage" in bad["detail"]

    made = await create_dataset(api, admin, project, schema_id, 20, types=["json"],
                                params={"seed": 5, "coverage": "each"})
    assert (await wait_for(api, admin, made["dataset_id"]))["status"] == "completed"
    records = (await download(api, admin, made["dataset_id"], "json")).json()
    assert len(records) == 20
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    assert all(validator.is_valid(r) for r in records)
    first = records[:6]
    for name in ("style", "viewEncapsulation", "changeDetection"):
        assert {r.get(name) for r in first} >= set(schema["properties"][name]["enum"]), name
    assert any("style" not in r for r in first)

    preview = await api.call("POST", f"/schemas/{schema_id}/preview", admin, 200,
                             json={"count": 6, "format": "json", "params": {"seed": 5, "coverage": "each"}})
    shown = json.loads(preview["content"]) if isinstance(preview.get("content"), str) else preview
    assert {r.get("style") for r in shown} >= set(schema["properties"]["style"]["enum"])


PLAN = """query($id: Int!, $mode: String, $params: JSON) {
  coverage_plan(schema_id: $id, mode: $mode, params: $params)
}"""


async def test_coverage_plan_before_creating(api: Api) -> None:
    _, admin = await api.create_tenant()
    schema_id = (await upload_schema(api, admin, ANGULAR, "angular-component.json"))["schema_id"]
    rest = await api.call("POST", f"/schemas/{schema_id}/coverage-plan", admin, 200,
                          json={"mode": "each", "params": {"seed": 5}})
    gql = (await api.gql_data(PLAN, {"id": schema_id, "mode": "each", "params": {"seed": 5}}, admin))
    assert gql["coverage_plan"] == rest
    assert rest["mode"] == "each" and rest["seed"] == "5"
    assert rest["records"] == 6 and rest["total"] == rest["covered"] == len(rest["targets"])
    styles = {t["value"] for t in rest["targets"] if t["pointer"] == "/style" and t["kind"] == "enum"}
    assert styles == {"css", "scss", "sass", "less", "none"}
    pairwise = await api.call("POST", f"/schemas/{schema_id}/coverage-plan", admin, 200,
                              json={"mode": "pairwise", "params": {"seed": 5}})
    assert pairwise["records"] > rest["records"]
    assert any(t["kind"] == "pair" for t in pairwise["targets"])
    bad = await api.call("POST", f"/schemas/{schema_id}/coverage-plan", admin, 422, json={"mode": "all"})
    assert "each or pairwise" in bad["detail"]
    _, stranger = await api.create_tenant()
    await api.call("POST", f"/schemas/{schema_id}/coverage-plan", stranger, 404, json={"mode": "each"})
