"""A download while the object store is frozen (its process stopped with SIGSTOP: connections
are accepted by the kernel and never answered) is a 503 with Retry-After within seconds, not a
request that hangs or a 200 that breaks off; the dataset stays completed and downloads again once
the store answers. The store is an S3 server of this test's own, so freezing it stops no other."""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator

import pytest

from app.core.settings import Settings
from app.core.storage.s3 import PROBE_SECONDS
from tests.api.test_download_honesty import completed
from tests.api_client import Api
from tests.datasets.flow import download
from tests.support.s3_server import own_moto, s3_client

# the store is this module's own S3 server (below), whatever the suite's storage parameter says
pytestmark = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)


@pytest.fixture
def own_s3() -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    with own_moto() as (endpoint, proc):
        yield proc, endpoint


@pytest.fixture
def settings(settings: Settings, own_s3: tuple[subprocess.Popen[bytes], str]) -> Settings:
    bucket = f"tdg-{uuid.uuid4().hex[:12]}"
    s3_client(own_s3[1]).create_bucket(Bucket=bucket)
    return settings.model_copy(update={
        "dispatch_interval_seconds": 0.2, "storage_url": f"s3://{bucket}/tdg", "s3_endpoint_url": own_s3[1]})


async def test_a_frozen_store_is_503_within_seconds(
    api: Api, settings: Settings, own_s3: tuple[subprocess.Popen[bytes], str]
) -> None:
    _, admin = await api.create_tenant()
    did = await completed(api, admin)
    whole = await download(api, admin, did, "csv")
    assert whole.status_code == 200
    os.kill(own_s3[0].pid, signal.SIGSTOP)
    try:
        for headers in ({}, {"Range": "bytes=0-99"}):
            started = time.monotonic()
            r = await download(api, admin, did, "csv", headers=headers)
            took = time.monotonic() - started
            assert r.status_code == 503, r.text[:300]
            assert int(r.headers["Retry-After"]) > 0
            assert r.json()["code"] == "storage_unavailable" and r.json()["detail"], r.text
            assert took < 3 * PROBE_SECONDS, took  # the probe's one attempt, not boto3's retries
    finally:
        os.kill(own_s3[0].pid, signal.SIGCONT)
    # nothing was lost: the dataset is as it was and its file downloads again
    assert (await api.call("GET", f"/datasets/{did}", admin, 200))["status"] == "completed"
    again = await download(api, admin, did, "csv")
    assert again.status_code == 200 and again.content == whole.content
