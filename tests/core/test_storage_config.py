"""A store the deployment got wrong (unreachable endpoint, missing bucket, no or refused
credentials): /readyz is false with the reason, uploads answer 503 with a sentence, a dataset whose
files cannot be written fails with a sentence; no traceback, no credential in any of them."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from botocore.exceptions import ClientError

from app.core.settings import Settings
from app.core.storage import store_problem
from app.core.storage.s3 import describe
from app.main import create_app
from tests.api_client import Api
from tests.conftest import ADMIN_PASSWORD
from tests.datasets.flow import ORDER_JSON, create_dataset, upload_schema, wait_for
from tests.integrations.receiver import closed_port
from tests.support.s3_server import KEY_ID, SECRET, free_port, s3_client
from tests.support.waiting import eventually_sync


@pytest.fixture
def storage() -> str:
    return "s3"


def _clean(text: str) -> None:
    assert "Traceback" not in text and SECRET not in text and KEY_ID not in text, text


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"dispatch_interval_seconds": 0.2})


@pytest.fixture
def unreachable(settings: Settings) -> Settings:
    return settings.model_copy(update={"s3_endpoint_url": f"http://127.0.0.1:{closed_port()}"})


async def test_ready_when_the_bucket_is_there(api: Api) -> None:
    r = await api.client.get("/readyz")
    assert r.status_code == 200, r.text


async def test_unreachable_endpoint(unreachable: Settings) -> None:
    app = create_app(unreachable, run_migrations=False)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            r = await client.get("/readyz")
    assert r.status_code == 503, r.text
    assert r.json()["detail"] == (
        "The file store cannot be used: The object store endpoint could not be reached."
    )
    _clean(r.text)


async def test_missing_bucket_fails_readiness_uploads_and_datasets(api: Api, settings: Settings) -> None:
    root = api.root
    assert root is not None
    project = await api.create_project(root, "Store")
    schema = await upload_schema(api, root, ORDER_JSON, "customer_order.schema.json")
    # the bucket goes away under the running service (emptied, then deleted)
    assert settings.s3_endpoint_url is not None and settings.storage_url is not None
    bucket = settings.storage_url.removeprefix("s3://").split("/")[0]
    client = s3_client(settings.s3_endpoint_url)
    for item in client.list_objects_v2(Bucket=bucket).get("Contents", []):
        client.delete_object(Bucket=bucket, Key=item["Key"])
    client.delete_bucket(Bucket=bucket)
    sentence = f"The object store has no bucket '{bucket}'."

    r = await api.client.get("/readyz")
    assert r.status_code == 503 and r.json()["detail"] == f"The file store cannot be used: {sentence}", r.text

    r = await api.request("POST", "/schemas", root, json={"name": "again", "content": '{"type": "object"}'})
    assert r.status_code == 503 and r.json()["detail"] == sentence, r.text
    _clean(r.text)

    ds = await create_dataset(api, root, project["project_id"], schema["schema_id"], 100, types=["csv"])
    done = await wait_for(api, root, ds["dataset_id"])
    assert done["status"] == "failed" and done["error"] == sentence, done
    _clean(str(done))


def test_missing_credentials(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_ACCESS_KEY_ID")
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY")
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
    monkeypatch.setenv("AWS_CONFIG_FILE", "/nonexistent")
    assert settings.storage_url is not None
    fresh = settings.model_copy(update={"storage_url": settings.storage_url + "-other"})  # a new client
    problem = store_problem(fresh)
    assert problem == (
        "No object-store credentials were found (AWS environment variables, config file or instance role)."
    )


def test_refused_credentials_are_named_by_code_only() -> None:
    for code in ("InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied"):
        exc = ClientError(
            {"Error": {"Code": code, "Message": f"The key {KEY_ID} with secret {SECRET} is wrong"}},
            "PutObject",
        )
        sentence = describe(exc, "bucket")
        assert sentence == f"The object store refused the service's credentials ({code}).", sentence
        _clean(sentence)


@pytest.fixture
def checking_server() -> Iterator[str]:
    """A moto server that checks credentials (it knows no access key: every key is refused)."""
    port = free_port()
    proc = subprocess.Popen(
        [str(Path(sys.executable).with_name("moto_server")), "-H", "127.0.0.1", "-p", str(port)],
        env={**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": "0"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def listening() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            return False

    try:
        eventually_sync(listening, timeout=120, what="moto_server listening")
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


async def test_refused_credentials(settings: Settings, checking_server: str) -> None:
    refused = settings.model_copy(update={"s3_endpoint_url": checking_server})
    app = create_app(refused, run_migrations=False)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            ready = await client.get("/readyz")
            token = (
                await client.post(
                    "/api/v1/users/token", data={"username": "root", "password": ADMIN_PASSWORD}
                )
            ).json()["access_token"]
            upload = await client.post(
                "/api/v1/schemas",
                headers={"Authorization": f"Bearer {token}"},
                json={"name": "s", "content": '{"type": "object"}'},
            )
    assert ready.status_code == 503, ready.text
    assert (
        ready.json()["detail"]
        == "The file store cannot be used: The object store refused the service's credentials (403)."
    )
    assert upload.status_code == 503, upload.text
    assert (
        upload.json()["detail"] == "The object store refused the service's credentials (InvalidAccessKeyId)."
    )
    for text in (ready.text, upload.text):
        _clean(text)
