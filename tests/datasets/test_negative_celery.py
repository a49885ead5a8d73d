"""A dataset with invalid records (issue 30) through Celery on real Redis, its files in the S3 store
(moto's server over HTTP): two `tdg worker` processes share its shards; the downloaded records and
labels are judged by jsonschema and the independent rule check (tests/generation/negative_checks),
constraint-set rules included; the export to an s3 integration carries the labels file (sent with any
formats) byte for byte. Both databases, as every dataset test."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from app.core.settings import Settings
from tests.api_client import Api
from tests.datasets.flow import ORDER_JSON, create_dataset, download, upload_schema, wait_for
from tests.datasets.processes import Proc, redis_database, service_env, start_worker
from tests.generation.negative_checks import check_rule_labels, json_validator
from tests.support.s3_server import KEY_ID, SECRET, objects, s3_client, storage_env

RULES = [
    {"path": "amount", "min": 10, "max": 5000},
    {"path": "status", "enum": ["paid", "shipped"]},
    {"path": "notes", "null_rate": 0},
    {"path": "line_items.quantity", "min": 2, "max": 9},
    {"path": "uuid", "unique": True},
]


@pytest.fixture
def storage() -> str:
    return "s3"


@pytest.fixture
def broker_url() -> Iterator[str]:
    with redis_database() as url:
        yield url


@pytest.fixture
def settings(settings: Settings, broker_url: str) -> Settings:
    # shards of 400 records: the 1,200 are cut in three, numbered labels across them
    return settings.model_copy(update={"broker_url": broker_url, "job_lease_seconds": 600.0,
                                       "shard_records": 400, "webhook_allow_private": True})


async def test_invalid_records_through_celery_into_the_store_and_out(api: Api, settings: Settings,
                                                                     tmp_path: Path) -> None:
    assert settings.broker_url and settings.storage_url and settings.s3_endpoint_url
    root = api.root
    assert root is not None
    env = service_env(settings.database_url, settings.data_dir, TDG_BROKER_URL=settings.broker_url,
                      TDG_JOB_LEASE_SECONDS="600", **storage_env(settings))
    workers: list[Proc] = []
    try:
        workers = [start_worker(env, tmp_path / f"worker{i}.log", f"neg{i}") for i in range(2)]
        project = (await api.create_project(root, "Negative Celery"))["project_id"]
        schema_id = (await upload_schema(api, root, ORDER_JSON, "customer_order.schema.json"))["schema_id"]
        constraint_id = (await api.call("POST", "/constraints", root, 201, json={
            "name": "negative", "schema_id": schema_id, "rules": RULES}))["constraint_id"]
        params = {"seed": 31, "invalid_rate": 0.25, "records_per_file": 600}
        made = await create_dataset(api, root, project, schema_id, 1200, types=["ndjson"], params=params,
                                    constraint_set_id=constraint_id)
        done = await wait_for(api, root, made["dataset_id"], timeout=300)
        assert done["status"] == "completed", done
        assert done["invalid_records"] == 300
        dataset_id = done["dataset_id"]
        for w in workers:
            assert "tdg.generate_shard" in w.output()

        records: list[object] = []
        for index in range(2):
            part = await download(api, root, dataset_id, "ndjson", index)
            assert part.status_code == 200, part.text
            records.extend(orjson.loads(line) for line in part.content.splitlines())
        assert len(records) == 1200
        got = await download(api, root, dataset_id, "labels")
        assert got.status_code == 200, got.text
        labels = [orjson.loads(line) for line in got.content.splitlines()]
        assert len(labels) == 300 and len({x["record"] for x in labels}) == 300
        assert [x["record"] for x in labels] == sorted(x["record"] for x in labels)
        check_rule_labels(json_validator(json.loads(ORDER_JSON)), records, labels, RULES)
        assert {x["rule"] for x in labels if x["rule"] is not None} == set(range(len(RULES)))
        assert sum(x["rule"] is None for x in labels) > 100  # the schema's constraints too

        # the files, labels included, are in the store, not on the local disk
        store_bucket = settings.storage_url.removeprefix("s3://").partition("/")[0]
        keys = objects(settings.s3_endpoint_url, store_bucket)
        assert any("labels" in k for k in keys), keys
        assert not list(settings.data_dir.rglob("*.ndjson")), "a file left on the local disk"

        # exported to an s3 integration with the records: the labels object is the download
        bucket = "tdg-negative-export"
        client = s3_client(settings.s3_endpoint_url)
        client.create_bucket(Bucket=bucket)
        store = await api.call("POST", "/integrations", root, 201, json={"name": "neg", "provider": "s3", "config": {
            "endpoint_url": settings.s3_endpoint_url, "bucket": bucket, "prefix": "neg",
            "access_key_id": KEY_ID, "secret_access_key": SECRET}})
        export = await api.call("POST", f"/datasets/{dataset_id}/export-objectstore", root, 201,
                                json={"integration_id": store["integration_id"], "formats": ["ndjson"]})
        assert export["status"] == "completed" and export["error"] is None, export
        exported = {o["format"]: o for o in export["objects"] if o["format"] == "labels"}
        assert sorted(o["key"] for o in export["objects"]) == [
            f"neg/dataset-{dataset_id}/labels/data-0000.labels.ndjson",
            f"neg/dataset-{dataset_id}/ndjson/data-0000.ndjson", f"neg/dataset-{dataset_id}/ndjson/data-0001.ndjson"]
        body = client.get_object(Bucket=bucket, Key=exported["labels"]["key"])["Body"].read()
        assert body == got.content
        assert hashlib.sha256(body).hexdigest() == exported["labels"]["sha256"]
    finally:
        for w in workers:
            w.stop()
