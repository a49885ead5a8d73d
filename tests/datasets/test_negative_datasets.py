"""params.invalid_rate / params.invalid_keywords on datasets and previews (issue 30 item 4), over
real HTTP on both databases: a dataset at rate 0.1 of 200 records (four files of 50) says 20
records are invalid, its labels file holds exactly 20 lines numbered across the files, each judged
by jsonschema against the downloaded records (tests/generation/negative_checks); the refusals are
422 with a sentence; another tenant's download of the labels is 404."""

from __future__ import annotations

import io
import json

import orjson
import pytest

from app.core.settings import Settings
from app.generation.negative.engine import attach_negative
from app.generation.plan import BLOCK_SIZE, compile_plan
from app.generation.schema.loader import load_schema
from tests.api_client import Api
from tests.datasets.flow import ORDER_JSON, ORDER_XSD, create_dataset, download, upload_schema, wait_for
from tests.generation.negative_checks import check_json_labels, json_validator

NOTHING_BREAKABLE = b'{"$schema": "https://json-schema.org/draft/2020-12/schema", "properties": {"a": {}}}'


async def test_negative_dataset_labels_preview_and_refusals(api: Api) -> None:
    _, admin = await api.create_tenant()
    project = (await api.create_project(admin, "Negative"))["project_id"]
    schema_id = (await upload_schema(api, admin, ORDER_JSON, "customer_order.schema.json"))["schema_id"]
    validator = json_validator(json.loads(ORDER_JSON))

    params = {"seed": 7, "invalid_rate": 0.1, "records_per_file": 50}
    made = await create_dataset(api, admin, project, schema_id, 200, types=["ndjson", "json"], params=params)
    detail = await wait_for(api, admin, made["dataset_id"])
    assert detail["status"] == "completed", detail
    assert detail["invalid_records"] == 20
    dataset_id = made["dataset_id"]

    records: list[object] = []
    for index in range(4):
        part = await download(api, admin, dataset_id, "ndjson", index)
        assert part.status_code == 200, part.text
        lines = [orjson.loads(line) for line in part.content.splitlines()]
        assert len(lines) == 50
        records.extend(lines)
    as_json = await download(api, admin, dataset_id, "json", 3)
    assert as_json.json() == records[150:]

    got = await download(api, admin, dataset_id, "labels")
    assert got.status_code == 200, got.text
    assert got.headers["content-type"].startswith("application/x-ndjson")
    labels = [orjson.loads(line) for line in got.content.splitlines()]
    assert len(labels) == 20
    assert [label["record"] for label in labels] == sorted(label["record"] for label in labels)
    assert any(label["record"] >= 50 for label in labels)  # numbered across the four files
    check_json_labels(validator, records, labels)

    assert (await download(api, admin, dataset_id, "labels", 1)).status_code == 404
    refused = await download(api, admin, dataset_id, "csv")  # never rendered with invalid records
    assert refused.status_code == 422 and "csv format" in refused.json()["detail"], refused.text

    # a dataset without invalid records has no labels file
    plain = await create_dataset(api, admin, project, schema_id, 5, types=["json"], params={"seed": 1})
    assert (await wait_for(api, admin, plain["dataset_id"]))["invalid_records"] == 0
    assert (await download(api, admin, plain["dataset_id"], "labels")).status_code == 404

    # another tenant sees neither the dataset nor its labels
    _, stranger = await api.create_tenant()
    assert (await download(api, stranger, dataset_id, "labels")).status_code == 404

    # the preview takes the same params and says which records are invalid and why
    preview = await api.call("POST", f"/schemas/{schema_id}/preview", admin, 200, json={
        "count": 10, "format": "json", "params": {"seed": 3, "invalid_rate": 0.5}})
    assert len(preview["labels"]) == 5
    check_json_labels(validator, json.loads(preview["content"]), preview["labels"])
    only = await api.call("POST", f"/schemas/{schema_id}/preview", admin, 200, json={
        "count": 10, "format": "ndjson", "params": {"seed": 3, "invalid_rate": 1, "invalid_keywords": ["maximum"]}})
    assert {label["keyword"] for label in only["labels"]} == {"maximum"} and len(only["labels"]) == 10

    async def refusal(schema: int, fmt: str, extra: dict[str, object], field: str = "params.invalid_rate") -> str:
        body = await create_dataset(api, admin, project, schema, 20, 422, types=[fmt], params=extra)
        assert body.get("field") == field, body  # the form field the web places the error at
        return str(body["detail"])

    assert "params.invalid_rate" in await refusal(schema_id, "json", {"invalid_rate": 1.5})
    assert "params.invalid_rate" in await refusal(schema_id, "json", {"invalid_rate": -0.1})
    assert "uniqueItems" in await refusal(
        schema_id, "json", {"invalid_rate": 0.1, "invalid_keywords": ["uniqueItems"]}, "params.invalid_keywords")
    assert "csv format" in await refusal(schema_id, "csv", {"invalid_rate": 0.1}, "types")
    bare = (await upload_schema(api, admin, NOTHING_BREAKABLE, "bare.schema.json"))["schema_id"]
    assert "nothing to make invalid" in await refusal(bare, "json", {"invalid_rate": 0.1})
    xsd = (await upload_schema(api, admin, ORDER_XSD, "customer_order.xsd"))["schema_id"]
    assert "written as xml" in await refusal(xsd, "json", {"invalid_rate": 0.1}, "types")
    bad_preview = await api.call("POST", f"/schemas/{schema_id}/preview", admin, 422, json={
        "count": 5, "format": "sql", "params": {"invalid_rate": 0.2}})
    assert "sql format" in bad_preview["detail"]


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # shards of one block: the sharded test's 9,000 records are three shards on two processes
    return settings.model_copy(update={"workers": 2, "shard_records": BLOCK_SIZE})


async def test_sharded_labels_are_those_of_one_process(api: Api) -> None:
    """Each shard writes its part of the labels; the one labels file is joined in record order:
    the bytes one process writes for the same inputs."""
    _, admin = await api.create_tenant()
    project = (await api.create_project(admin, "Negative shards"))["project_id"]
    schema_id = (await upload_schema(api, admin, ORDER_JSON, "customer_order.schema.json"))["schema_id"]
    n, params = 9_000, {"seed": 11, "invalid_rate": 0.01, "records_per_file": 5_000}
    made = await create_dataset(api, admin, project, schema_id, n, types=["ndjson"], params=params)
    detail = await wait_for(api, admin, made["dataset_id"])
    assert detail["status"] == "completed" and detail["invalid_records"] == 90, detail

    plan = compile_plan(load_schema(ORDER_JSON, "customer_order.schema.json"), [], params, record_count=n)
    attach_negative(plan, load_schema(ORDER_JSON, "customer_order.schema.json"), rate=0.01, formats=("ndjson",))
    expected = io.BytesIO()
    plan.write("ndjson", io.BytesIO(), labels=expected)
    got = await download(api, admin, made["dataset_id"], "labels")
    assert got.status_code == 200, got.text
    assert got.content == expected.getvalue()
    assert len(got.content.splitlines()) == 90
