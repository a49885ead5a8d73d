"""Datasets on an S3 server (moto's, over HTTP): a dataset cut into several shards is assembled in
the store and is byte-identical to the same seed rendered in one pass; nothing of its parts or
unfinished uploads is left; downloads stream with Range, or redirect to a presigned URL once the
caller is authorized."""

from __future__ import annotations

import hashlib
from typing import Any

import httpx
import pytest

from app.core.settings import Settings
from tests.api_client import Api
from tests.datasets.flow import ORDER_JSON, create_dataset, download, upload_schema, wait_for
from tests.support.s3_server import KEY_ID, SECRET, s3_client, stored_under, unfinished_uploads


@pytest.fixture
def storage() -> str:
    return "s3"


@pytest.fixture
def settings(settings: Settings) -> Settings:
    # several shards of parts above S3's 5 MiB floor, so files are assembled by copies in the store
    return settings.model_copy(
        # the export target is on loopback
        update={"workers": 2, "shard_records": 15_000, "export_part_bytes": 5 * 1024 * 1024,
                "webhook_allow_private": True}
    )


async def test_sharded_dataset_assembled_in_the_store_matches_one_pass(api: Api, settings: Settings) -> None:
    root = api.root
    assert root is not None
    project = await api.create_project(root, "S3")
    schema = await upload_schema(api, root, ORDER_JSON, "customer_order.schema.json")
    sharded = await create_dataset(
        api,
        root,
        project["project_id"],
        schema["schema_id"],
        60_000,
        types=["json", "csv"],
        params={"seed": 5},
    )
    other = await create_dataset(
        api, root, project["project_id"], schema["schema_id"], 60_000, types=["sql"], params={"seed": 5}
    )
    a = await wait_for(api, root, sharded["dataset_id"], timeout=180)
    b = await wait_for(api, root, other["dataset_id"], timeout=180)
    assert a["status"] == b["status"] == "completed", (a, b)
    assert max(f["size_bytes"] for f in a["files"]) > 4 * 5 * 1024 * 1024  # parts above the floor
    for fmt in ("json", "csv"):
        assembled = await download(api, root, a["dataset_id"], fmt)
        rendered = await download(api, root, b["dataset_id"], fmt)  # one process, one pass
        assert assembled.status_code == rendered.status_code == 200
        assert assembled.content == rendered.content, fmt
        row = next(f for f in a["files"] if f["format"] == fmt)
        assert (
            row["sha256"]
            == hashlib.sha256(assembled.content).hexdigest()
            == assembled.headers["x-content-sha256"]
        )
        assert row["size_bytes"] == len(assembled.content)
    assert not [
        k for k in stored_under(settings, f"datasets/{a['dataset_id']}") if not k.startswith("files/")
    ]
    assert settings.s3_endpoint_url and settings.storage_url
    assert unfinished_uploads(settings.s3_endpoint_url, settings.storage_url[5:].split("/")[0]) == []

    full = (await download(api, root, a["dataset_id"], "csv")).content
    r = await download(api, root, a["dataset_id"], "csv", headers={"Range": "bytes=1000-1999999"})
    assert r.status_code == 206 and r.content == full[1000:2_000_000]
    assert r.headers["content-range"] == f"bytes 1000-1999999/{len(full)}"
    r = await download(api, root, a["dataset_id"], "csv", headers={"Range": "bytes=abc"})
    assert r.status_code == 400 and "Range" in r.json()["detail"]


async def test_redirect_to_a_presigned_url_after_authorization(api: Api, settings: Settings) -> None:
    root = api.root
    assert root is not None
    project = await api.create_project(root, "Redirect")
    schema = await upload_schema(api, root, ORDER_JSON, "customer_order.schema.json")
    ds = await create_dataset(api, root, project["project_id"], schema["schema_id"], 500, types=["csv"])
    done = await wait_for(api, root, ds["dataset_id"])
    assert done["status"] == "completed", done
    streamed = (await download(api, root, ds["dataset_id"], "csv")).content

    settings.download_redirect = True  # the app reads its settings object on each request
    try:
        r = await download(api, root, ds["dataset_id"], "csv")
        assert r.status_code == 307, r.text
        url = r.headers["location"]
        assert "X-Amz-Expires=300" in url and "X-Amz-Signature=" in url
        fetched = httpx.get(url)
        assert fetched.status_code == 200 and fetched.content == streamed
        assert fetched.headers["content-type"] == "text/csv; charset=utf-8"
        # no authorization, no URL: the check comes first
        outsider = await api.client.get(f"/api/v1/data/{ds['dataset_id']}", params={"format": "csv"})
        assert outsider.status_code == 401 and "location" not in outsider.headers
    finally:
        settings.download_redirect = False


async def test_export_to_the_same_store_copies_inside_it(
    api: Api, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.core.integrations import s3_client as s3_service

    requests: list[str] = []
    real = s3_service.s3_client

    def observed(config: dict[str, Any], secrets: dict[str, str]) -> Any:
        client = real(config, secrets)
        for operation in ("CopyObject", "UploadPartCopy", "PutObject", "UploadPart", "CreateMultipartUpload"):
            client.meta.events.register(f"before-call.s3.{operation}", lambda op=operation, **_: requests.append(op))
        return client

    monkeypatch.setattr(s3_service, "s3_client", observed)
    _, admin = await api.create_tenant()
    project = await api.create_project(admin, "Export")
    schema = await upload_schema(api, admin, ORDER_JSON, "customer_order.schema.json")
    ds = await create_dataset(api, admin, project["project_id"], schema["schema_id"], 2_000, types=["json"])
    done = await wait_for(api, admin, ds["dataset_id"])
    assert done["status"] == "completed", done
    assert settings.s3_endpoint_url is not None
    target = f"export-{ds['dataset_id']}-{id(settings) % 10_000}"
    s3_client(settings.s3_endpoint_url).create_bucket(Bucket=target)
    integration = await api.call("POST", "/integrations", admin, 201, json={
        "name": "same store", "provider": "s3", "config": {
            "endpoint_url": settings.s3_endpoint_url, "bucket": target, "prefix": "out", "access_key_id": KEY_ID,
            "secret_access_key": SECRET}})
    export = await api.call("POST", f"/datasets/{ds['dataset_id']}/export-objectstore", admin, 201,
                            json={"integration_id": integration["integration_id"], "formats": ["json"]})
    assert export["status"] == "completed", export
    assert requests == ["CopyObject"], requests  # no byte went through the service
    (obj,) = export["objects"]
    got = s3_client(settings.s3_endpoint_url).get_object(Bucket=target, Key=obj["key"])
    content = got["Body"].read()
    assert got["Metadata"]["sha256"] == obj["sha256"] == hashlib.sha256(content).hexdigest()
    assert got["ContentType"] == "application/json"
    assert content == (await download(api, admin, ds["dataset_id"], "json")).content
