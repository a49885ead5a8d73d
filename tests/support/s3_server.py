"""A real S3-compatible server for the tests: moto's standalone server (`moto_server`) started in its
own process on a free loopback port, as PostgreSQL is a server of its own; the app reaches it over
HTTP with boto3 exactly as it would reach MinIO. Each test gets a bucket of its own.

The store takes its credentials from the standard AWS chain, so the fixture sets the AWS
environment variables (moto accepts any key) for this process and the workers it starts."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import boto3
import pytest

from app.core.settings import Settings
from tests.support.ports import free_port

KEY_ID, SECRET = "AKIDSTORETEST", "store-secret-access-key-42"
AWS_ENV = {
    "AWS_ACCESS_KEY_ID": KEY_ID,
    "AWS_SECRET_ACCESS_KEY": SECRET,
    "AWS_DEFAULT_REGION": "us-east-1",
}
STORAGES = ["local", "s3"]
START_SECONDS = 120  # a deadline: moto's imports take seconds, many more on a loaded machine


def start_moto(port: int) -> subprocess.Popen[bytes]:
    server = Path(sys.executable).with_name("moto_server")
    proc = subprocess.Popen(
        [str(server), "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError("moto_server exited at start-up") from None
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"moto_server did not listen on port {port} within {START_SECONDS} s")


def s3_client(endpoint: str) -> Any:
    return boto3.session.Session().client(
        "s3",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id=KEY_ID,
        aws_secret_access_key=SECRET,
    )


@contextmanager
def own_moto() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A moto server (endpoint URL, process) with the AWS variables set while it runs; a process a
    test left stopped (SIGSTOP, a frozen store) is resumed so that it can end."""
    saved = {k: os.environ.get(k) for k in AWS_ENV}
    os.environ.update(AWS_ENV)
    port = free_port()
    proc = start_moto(port)
    try:
        yield f"http://127.0.0.1:{port}", proc
    finally:
        os.kill(proc.pid, signal.SIGCONT)
        proc.terminate()
        proc.wait(timeout=30)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture(scope="session")
def s3_server() -> Iterator[str]:
    """The endpoint URL of a moto server for this test session (process)."""
    with own_moto() as (endpoint, _):
        yield endpoint


@pytest.fixture
def s3_bucket(s3_server: str) -> str:
    name = f"tdg-{uuid.uuid4().hex[:12]}"
    s3_client(s3_server).create_bucket(Bucket=name)
    return name


@pytest.fixture
def storage() -> str:
    """Where the app under test keeps its files: the local folder, or TDG_TEST_STORAGE (`s3` runs
    any part of the suite against the S3 server); modules parametrize it (`STORAGES`) to run both."""
    return os.environ.get("TDG_TEST_STORAGE", "local")


@pytest.fixture
def storage_settings(storage: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    """The settings that put the app's files in `storage`: nothing for the local folder."""
    if storage == "local":
        return {}
    endpoint = request.getfixturevalue("s3_server")
    bucket = request.getfixturevalue("s3_bucket")
    return {"storage_url": f"s3://{bucket}/tdg", "s3_endpoint_url": endpoint}


def objects(endpoint: str, bucket: str, prefix: str = "") -> list[str]:
    listed = s3_client(endpoint).list_objects_v2(Bucket=bucket, Prefix=prefix)
    return sorted(item["Key"] for item in listed.get("Contents", []))


def unfinished_uploads(endpoint: str, bucket: str) -> list[str]:
    listed = s3_client(endpoint).list_multipart_uploads(Bucket=bucket)
    return sorted(item["Key"] for item in listed.get("Uploads", []))


def storage_env(settings: Settings) -> dict[str, str]:
    """The environment that puts a `tdg` subprocess's files where `settings` puts the app's: nothing
    for the local folder (TDG_DATA_DIR says it), the store's URL, endpoint and credentials for S3."""
    if not settings.storage_url:
        return {}
    env = {"TDG_STORAGE_URL": settings.storage_url, **AWS_ENV}
    if settings.s3_endpoint_url:
        env["TDG_S3_ENDPOINT_URL"] = settings.s3_endpoint_url
    return env


def on_disk(folder: Path, *, empty_folders: bool = False) -> list[str]:
    """The files under `folder` (relative paths), and with `empty_folders` each folder holding no
    file as `name/`: what a local store holds there."""
    if not folder.exists():
        return []
    files = [p for p in folder.rglob("*") if p.is_file()]
    found = [str(p.relative_to(folder)) for p in files]
    if empty_folders:
        holding = {parent for p in files for parent in p.parents}
        found += [f"{p.relative_to(folder)}/" for p in folder.rglob("*") if p.is_dir() and p not in holding]
    return sorted(found)


def stored_under(settings: Settings, prefix: str, *, empty_folders: bool = False) -> list[str]:
    """What the app's store holds under the folder `prefix` (objects and unfinished multipart
    uploads on S3, files on disk and with `empty_folders` folders holding none), seen from outside
    the app."""
    if not settings.storage_url:
        return on_disk(settings.data_dir / prefix, empty_folders=empty_folders)
    bucket, _, base = settings.storage_url.removeprefix("s3://").partition("/")
    assert settings.s3_endpoint_url is not None
    key = f"{base.strip('/')}/{prefix}/"
    client = s3_client(settings.s3_endpoint_url)
    listed = client.list_objects_v2(Bucket=bucket, Prefix=key).get("Contents", [])
    uploads = client.list_multipart_uploads(Bucket=bucket, Prefix=key).get("Uploads", [])
    return sorted(
        [item["Key"][len(key) :] for item in listed]
        + [f"(unfinished) {u['Key'][len(key) :]}" for u in uploads]
    )
