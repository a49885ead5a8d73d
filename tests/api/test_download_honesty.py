"""A download looks at its stored file before it answers: a file missing from the store (or of
another size than recorded) is a 410 with a sentence, never a 200 that breaks off, and the dataset
then says so (expired, with the reason, no files listed) for every later request; ranged, linked
and redirected downloads alike. Runs on the local folder and on the S3 server (tests/conftest.py
STORING pairs them with the databases)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.core.settings import Settings
from tests.api_client import Actor, Api
from tests.datasets.flow import ORDER_JSON, create_dataset, download, upload_schema, wait_for
from tests.support.s3_server import s3_client, stored_under
from tests.support.waiting import eventually

LINK = """mutation Link($dataset_id: Int!, $format: String!) {
  create_download_link(dataset_id: $dataset_id, format: $format, file_index: 0) { url }
}"""


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"dispatch_interval_seconds": 0.2})


async def completed(api: Api, admin: Actor) -> int:
    project = await api.create_project(admin, "Honest downloads")
    schema = await upload_schema(api, admin, ORDER_JSON, "customer_order.schema.json")
    dataset = await create_dataset(api, admin, project["project_id"], schema["schema_id"], 200,
                                   types=["csv", "json"], params={"seed": 5})
    assert (await wait_for(api, admin, dataset["dataset_id"]))["status"] == "completed"
    return int(dataset["dataset_id"])


def replace_stored(settings: Settings, relative: str, content: bytes | None) -> None:
    """From outside the app: delete the stored file (`None`) or overwrite it."""
    if not settings.storage_url:
        path = settings.data_dir / relative
        if content is None:
            path.unlink()
        else:
            path.write_bytes(content)
        return
    bucket, _, base = settings.storage_url.removeprefix("s3://").partition("/")
    assert settings.s3_endpoint_url is not None
    client = s3_client(settings.s3_endpoint_url)
    key = f"{base.strip('/')}/{relative}"
    if content is None:
        client.delete_object(Bucket=bucket, Key=key)
    else:
        client.put_object(Bucket=bucket, Key=key, Body=content)


def the_file(settings: Settings, dataset_id: int, suffix: str) -> str:
    folder = f"datasets/{dataset_id}/files"  # (not the shards' work/, swept after completion)
    names = stored_under(settings, folder)
    found = [n for n in names if n.endswith(suffix)]
    assert len(found) == 1, names
    return f"{folder}/{found[0]}"


async def assert_gone(api: Api, admin: Actor, dataset_id: int, reason: str, **kwargs: Any) -> None:
    r = await download(api, admin, dataset_id, "csv", **kwargs)
    assert r.status_code == 410, (r.status_code, r.text[:300])
    assert r.json() == {"detail": reason, "code": "dataset_expired"}


async def test_a_missing_file_is_410_and_the_dataset_says_so(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    did = await completed(api, admin)
    assert (await download(api, admin, did, "csv")).status_code == 200
    replace_stored(settings, the_file(settings, did, ".csv"), None)

    reason = f"The stored file dataset-{did}.csv is missing from the file store; generate the dataset again."
    await assert_gone(api, admin, did, reason, headers={"Range": "bytes=0-99"})
    # from now on the dataset's state answers, for every format and every door
    await assert_gone(api, admin, did, reason)
    r = await download(api, admin, did, "json")
    assert r.status_code == 410 and r.json()["detail"] == reason, r.text
    link = await api.graphql(LINK, {"dataset_id": did, "format": "csv"}, admin)
    assert link["errors"][0]["extensions"]["code"] == "dataset_expired", link
    assert link["errors"][0]["message"] == reason
    body = await api.call("GET", f"/datasets/{did}", admin, 200)
    assert (body["status"], body["error"], body["files"]) == ("expired", reason, [])
    # and what was left of it is removed, as the retention purge does
    await eventually(lambda: asyncio.to_thread(stored_under, settings, f"datasets/{did}"),
                     lambda there: not there, timeout=60, what="the dataset's folder removed")


async def test_a_file_of_another_size_is_410(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    did = await completed(api, admin)
    replace_stored(settings, the_file(settings, did, ".csv"), b"id,name\n1,cut sho")
    # a browser's download link is refused the same way
    link = await api.graphql(LINK, {"dataset_id": did, "format": "csv"}, admin)
    r = await api.client.get(link["data"]["create_download_link"]["url"])
    assert r.status_code == 410, r.text
    assert r.json()["detail"].startswith(f"The stored file dataset-{did}.csv has 17 bytes, not ")
    assert (await api.call("GET", f"/datasets/{did}", admin, 200))["status"] == "expired"


@pytest.mark.parametrize(("database_url", "storage"), [("postgresql", "s3")], indirect=["database_url"])
async def test_a_redirected_download_checks_first(api: Api, settings: Settings) -> None:
    """TDG_DOWNLOAD_REDIRECT: a 307 to a presigned URL is sent only for a file that is there."""
    settings.download_redirect = True  # the app holds this very object
    _, admin = await api.create_tenant()
    did = await completed(api, admin)
    r = await download(api, admin, did, "json")
    assert r.status_code == 307, r.text
    replace_stored(settings, the_file(settings, did, ".csv"), None)
    reason = f"The stored file dataset-{did}.csv is missing from the file store; generate the dataset again."
    await assert_gone(api, admin, did, reason)
