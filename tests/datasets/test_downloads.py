"""The download door over HTTP: media types and file names per format, Range requests, checksums,
formats rendered on request, and deletion (completed and running datasets) removing the files."""

from __future__ import annotations

import asyncio
import hashlib
import time

import pytest

from app.core.settings import Settings
from tests.api_client import Api
from tests.datasets.flow import ORDER_JSON, create_dataset, download, upload_schema, wait_for
from tests.support.s3_server import STORAGES, stored_under
from tests.support.waiting import eventually

# every test here runs with the files in the local folder and in an S3 server (moto)
pytestmark = pytest.mark.parametrize("storage", STORAGES)


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """Two pool processes, as in production: on-demand renders of one format can race."""
    return settings.model_copy(update={"workers": 2})


MEDIA = {"csv": "text/csv; charset=utf-8", "json": "application/json", "xml": "application/xml",
         "sql": "application/sql"}


async def test_headers_range_checksums_and_rendering(api: Api, settings: Settings) -> None:
    root = api.root
    assert root is not None
    project = await api.create_project(root, "Downloads")
    schema = await upload_schema(api, root, ORDER_JSON, "customer_order.schema.json")
    only_csv = await create_dataset(api, root, project["project_id"], schema["schema_id"], 700, types=["csv"],
                                    params={"seed": 31})
    all_four = await create_dataset(api, root, project["project_id"], schema["schema_id"], 700,
                                    types=["csv", "json", "xml", "sql"], params={"seed": 31})
    a = await wait_for(api, root, only_csv["dataset_id"])
    b = await wait_for(api, root, all_four["dataset_id"])
    assert a["status"] == b["status"] == "completed", (a, b)
    assert [f["format"] for f in a["files"]] == ["csv"]
    did = a["dataset_id"]

    # three clients ask at once for a format that was never written: one rendering, three answers
    racing = await asyncio.gather(*(download(api, root, did, "json") for _ in range(3)))
    assert [r.status_code for r in racing] == [200, 200, 200], [r.text[:200] for r in racing]
    assert len({r.content for r in racing}) == 1
    listed = (await api.call("GET", f"/datasets/{did}", root, 200))["files"]
    assert sorted((f["format"], f["file_index"]) for f in listed) == [("csv", 0), ("json", 0)]

    for fmt in ("csv", "json", "xml", "sql"):
        r = await download(api, root, did, fmt)
        assert r.status_code == 200, (fmt, r.text)
        assert r.headers["content-type"] == MEDIA[fmt]
        assert r.headers["content-disposition"] == f'attachment; filename="dataset-{did}.{fmt}"'
        digest = hashlib.sha256(r.content).hexdigest()
        assert r.headers["x-content-sha256"] == digest
        assert int(r.headers["content-length"]) == len(r.content)
        listed = (await api.call("GET", f"/datasets/{did}", root, 200))["files"]
        row = next(f for f in listed if f["format"] == fmt)
        assert row["sha256"] == digest and row["size_bytes"] == len(r.content) and row["records"] == 700
        # rendered on request from the same records: the pre-generated dataset of the same seed matches
        same = next(f for f in b["files"] if f["format"] == fmt)
        assert same["sha256"] == digest, fmt
    listed = (await api.call("GET", f"/datasets/{did}", root, 200))["files"]
    assert sorted(f["format"] for f in listed) == ["csv", "json", "sql", "xml"]

    full = (await download(api, root, did, "csv")).content
    r = await download(api, root, did, "csv", headers={"Range": "bytes=10-99"})
    assert r.status_code == 206, r.text
    assert r.content == full[10:100]
    assert r.headers["content-range"] == f"bytes 10-99/{len(full)}"
    r = await download(api, root, did, "csv", headers={"Range": f"bytes=-{len(full) // 3}"})
    assert r.status_code == 206 and r.content == full[-(len(full) // 3):]
    r = await download(api, root, did, "csv", headers={"Range": f"bytes={len(full) + 10}-"})
    assert r.status_code == 416, r.status_code

    # deleting a completed dataset removes its rows and its files
    assert stored_under(settings, f"datasets/{did}")
    r = await api.request("DELETE", f"/datasets/{did}", root)
    assert r.status_code == 200, r.text
    assert not stored_under(settings, f"datasets/{did}")
    assert (await api.request("GET", f"/datasets/{did}", root)).status_code == 404
    assert (await download(api, root, did, "csv")).status_code == 404
    # the other dataset is untouched
    assert (await download(api, root, b["dataset_id"], "xml")).status_code == 200


async def test_deleting_a_running_dataset_cancels_it_and_removes_its_files(api: Api, settings: Settings) -> None:
    root = api.root
    assert root is not None
    project = await api.create_project(root, "Cancel")
    schema = await upload_schema(api, root, ORDER_JSON, "customer_order.schema.json")
    ds = await create_dataset(api, root, project["project_id"], schema["schema_id"], 3_000_000, types=["csv"])
    did = ds["dataset_id"]
    body = await wait_for(api, root, did, until=("running",), progress_above=0, timeout=60)
    assert body["status"] == "running", body
    folder = f"datasets/{did}"
    # on S3 a part being written is an unfinished multipart upload until the part is whole
    await eventually(lambda: asyncio.to_thread(stored_under, settings, folder), timeout=30,
                     what="the worker writing its first part")

    r = await api.request("DELETE", f"/datasets/{did}", root)
    assert r.status_code == 200 and r.json()["status"] == "cancelled", r.text
    # the worker loses its fence at its next progress update and removes what it wrote
    await eventually(lambda: asyncio.to_thread(stored_under, settings, folder), lambda files: not files, timeout=15,
                     what="the cancelled worker removing its files")
    await asyncio.sleep(1.5)
    body = await api.call("GET", f"/datasets/{did}", root, 200)
    assert body["status"] == "cancelled" and body["files"] == [] and body["error"], body
    assert not stored_under(settings, folder)
    r = await download(api, root, did, "csv")
    assert r.status_code == 409 and "cancelled" in r.json()["detail"]
    # both worker slots are free again: the cancelled run stopped instead of writing 3M records
    assert settings.workers == 2
    started = time.monotonic()
    small = [await create_dataset(api, root, project["project_id"], schema["schema_id"], 100, types=["csv"])
             for _ in range(2)]
    for ds in small:
        assert (await wait_for(api, root, ds["dataset_id"], timeout=20))["status"] == "completed"
    assert time.monotonic() - started < 10
