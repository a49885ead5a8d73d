"""Export to a real S3-compatible server on loopback (moto's standalone server): the objects are
downloaded back with boto3 and compared byte for byte and by SHA-256 with the dataset's files;
large files go up in multipart; failures are recorded without credentials; 4xx paths."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto.server import ThreadedMotoServer

from app.core.settings import Settings
from tests.api_client import Actor, Api
from tests.datasets.flow import create_dataset, download, wait_for
from tests.integrations.receiver import closed_port

SCHEMA = ('{"type": "object", "required": ["id", "name", "note"], "properties": {'
          '"id": {"type": "integer", "minimum": 1}, "name": {"type": "string", "maxLength": 30},'
          '"note": {"type": "string", "minLength": 60, "maxLength": 80}}}')
KEY_ID, SECRET = "AKIDEXPORTTEST", "export-secret-access-key-42"


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


def _client(endpoint: str) -> Any:
    return boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=KEY_ID,
                        aws_secret_access_key=SECRET)


@pytest.fixture
def bucket(s3_endpoint: str, request: pytest.FixtureRequest) -> str:
    name = f"tdg-{abs(hash(request.node.nodeid)) % 10**8}"
    _client(s3_endpoint).create_bucket(Bucket=name)
    return name


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # the smallest part size S3 allows, so a multi-megabyte file is uploaded in several parts
    return settings.model_copy(update={"export_part_bytes": 5 * 1024 * 1024})


async def _completed_dataset(api: Api, actor: Actor, record_count: int, **extra: Any) -> tuple[dict[str, Any], int]:
    project = await api.create_project(actor, "Export")
    schema = await api.call("POST", "/schemas", actor, 201, json={"name": "rows", "content": SCHEMA,
                                                                  "project_id": project["project_id"]})
    dataset = await create_dataset(api, actor, project["project_id"], schema["schema_id"], record_count, **extra)
    done = await wait_for(api, actor, dataset["dataset_id"])
    assert done["status"] == "completed", done
    return done, project["project_id"]


async def _s3_integration(api: Api, admin: Actor, endpoint: str, bucket: str, **config: Any) -> dict[str, Any]:
    return await api.call("POST", "/integrations", admin, 201, json={"name": "store", "provider": "s3", "config": {
        "endpoint_url": endpoint, "bucket": bucket, "prefix": "tdg", "access_key_id": KEY_ID,
        "secret_access_key": SECRET, **config}})


async def test_export_round_trip(api: Api, s3_endpoint: str, bucket: str) -> None:
    _, admin = await api.create_tenant()
    dataset, _ = await _completed_dataset(api, admin, 60_000, types=["json"], params={"records_per_file": 50_000})
    store = await _s3_integration(api, admin, s3_endpoint, bucket)
    check = await api.call("POST", f"/integrations/{store['integration_id']}/test", admin, 200)
    assert check["ok"] is True, check

    did = dataset["dataset_id"]
    export = await api.call("POST", f"/datasets/{did}/export-objectstore", admin, 201,
                            json={"integration_id": store["integration_id"], "formats": ["json", "csv"],
                                  "prefix": "run-1"})
    assert export["status"] == "completed" and export["error"] is None and export["bucket"] == bucket
    keys = sorted(o["key"] for o in export["objects"])
    assert keys == ["tdg/run-1/csv/data-0000.csv", "tdg/run-1/csv/data-0001.csv",
                    "tdg/run-1/json/data-0000.json", "tdg/run-1/json/data-0001.json"]

    client = _client(s3_endpoint)
    multipart = 0
    for obj in export["objects"]:
        got = client.get_object(Bucket=bucket, Key=obj["key"])
        content = got["Body"].read()
        assert hashlib.sha256(content).hexdigest() == obj["sha256"] == got["Metadata"]["sha256"]
        assert len(content) == obj["size_bytes"]
        served = await download(api, admin, did, obj["format"], obj["file_index"])
        assert served.status_code == 200 and served.content == content
        multipart += got["ETag"].strip('"').count("-")  # a multipart ETag is "<md5>-<parts>"
    assert multipart >= 1, "no file was large enough to be uploaded in parts"

    # the dataset now lists csv too (rendered for the export), and the export is audited
    files = {(f["format"], f["file_index"]) for f in (await api.call("GET", f"/datasets/{did}", admin, 200))["files"]}
    assert ("csv", 1) in files
    rows = await api.call("GET", "/audit/logs", admin, 200, params={"action": "dataset.export"})
    assert rows[0]["target_id"] == str(did) and rows[0]["details"]["status"] == "completed"


async def test_export_failures_never_show_credentials(api: Api, s3_endpoint: str) -> None:
    _, admin = await api.create_tenant()
    dataset, _ = await _completed_dataset(api, admin, 5)
    did = dataset["dataset_id"]
    missing = await _s3_integration(api, admin, s3_endpoint, "no-such-bucket-here")
    export = await api.call("POST", f"/datasets/{did}/export-objectstore", admin, 201,
                            json={"integration_id": missing["integration_id"]})
    assert export["status"] == "failed" and "NoSuchBucket" in export["error"]
    down = await _s3_integration(api, admin, f"http://127.0.0.1:{closed_port()}", "any-bucket")
    export = await api.call("POST", f"/datasets/{did}/export-objectstore", admin, 201,
                            json={"integration_id": down["integration_id"]})
    assert export["status"] == "failed" and "could not be reached" in export["error"]
    check = await api.call("POST", f"/integrations/{missing['integration_id']}/test", admin, 200)
    assert check["ok"] is False
    for text in (str(export), str(check)):
        assert SECRET not in text and KEY_ID not in text


async def test_export_4xx(api: Api, s3_endpoint: str, bucket: str) -> None:
    _, admin = await api.create_tenant()
    dataset, project_id = await _completed_dataset(api, admin, 3)
    did = dataset["dataset_id"]
    store = await _s3_integration(api, admin, s3_endpoint, bucket)
    hook = await api.call("POST", "/integrations", admin, 201, json={
        "name": "hook", "provider": "webhook", "config": {"url": f"http://127.0.0.1:{closed_port()}/"}})
    path = f"/datasets/{did}/export-objectstore"
    await api.call("POST", path, admin, 400, json={})
    # a body id naming no row is 404; a webhook integration exists but is no object storage: 422
    await api.call("POST", path, admin, 422, json={"integration_id": hook["integration_id"]})
    await api.call("POST", path, admin, 404, json={"integration_id": 999_999})
    await api.call("POST", path, admin, 422, json={"integration_id": store["integration_id"], "formats": ["pdf"]})
    await api.call("POST", path, admin, 422, json={"integration_id": store["integration_id"], "prefix": "../x y"})
    await api.call("POST", "/datasets/999999/export-objectstore", admin, 404,
                   json={"integration_id": store["integration_id"]})
    # a view-only member sees the dataset but may not export it; another tenant does not see it
    viewer = await api.create_user(admin, "Tester")
    await api.add_member(admin, project_id, viewer.id, "view")
    await api.call("POST", path, viewer, 403, json={"integration_id": store["integration_id"]})
    _, other = await api.create_tenant()
    await api.call("POST", path, other, 404, json={"integration_id": store["integration_id"]})
    # not completed yet -> 409
    deferred = await create_dataset(api, admin, project_id, dataset["schema_id"], 3, params={"deferred": True})
    r = await api.request("POST", f"/datasets/{deferred['dataset_id']}/export-objectstore", admin,
                          json={"integration_id": store["integration_id"]})
    assert r.status_code == 409 and "queued" in r.json()["detail"]
    # a disabled integration is refused
    await api.call("PUT", f"/integrations/{store['integration_id']}", admin, 200, json={"is_active": False})
    await api.call("POST", path, admin, 409, json={"integration_id": store["integration_id"]})


async def test_export_rendering_several_formats_is_no_500(api: Api) -> None:
    """Several formats not pre-generated: each is rendered (in the renderer's process, which writes
    its file rows) before the upload. A download's audit row flushed between two renders held
    SQLite's write lock in the request, and the next render failed with "database is locked" (a 500
    found by schemathesis)."""
    _, admin = await api.create_tenant()
    dataset, _ = await _completed_dataset(api, admin, 3)
    did = dataset["dataset_id"]
    down = await _s3_integration(api, admin, f"http://127.0.0.1:{closed_port()}", "any-bucket")
    export = await api.call("POST", f"/datasets/{did}/export-objectstore", admin, 201,
                            json={"integration_id": down["integration_id"], "formats": ["sql", "ndjson", "xml"]})
    assert export["status"] == "failed" and "could not be reached" in export["error"]
