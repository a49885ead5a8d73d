"""Deleting a project takes its datasets, their file rows and their files with it."""

from __future__ import annotations

from app.core.settings import Settings
from tests.api_client import Api
from tests.datasets.flow import create_dataset, upload_schema, wait_for
from tests.paths import BENCH
from tests.support.s3_server import stored_under


async def test_deleting_a_project_removes_its_datasets_and_files(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    project = await api.create_project(admin, "doomed")
    schema = await upload_schema(api, admin, (BENCH / "customer_order.schema.json").read_bytes(), "o.json")
    ids = []
    for _ in range(2):
        ds = await create_dataset(api, admin, project["project_id"], schema["schema_id"], 50, types=["csv"])
        assert (await wait_for(api, admin, ds["dataset_id"]))["status"] == "completed"
        ids.append(ds["dataset_id"])
    folders = [f"datasets/{i}" for i in ids]
    assert all(stored_under(settings, f) for f in folders)

    await api.call("DELETE", f"/projects/{project['project_id']}", admin, 200)
    for dataset_id in ids:
        await api.call("GET", f"/datasets/{dataset_id}", admin, 404)
    assert not any(stored_under(settings, f, empty_folders=True) for f in folders)
    # the schema survives, now linked to no project
    body = await api.call("GET", f"/schemas/{schema['schema_id']}", admin, 200)
    assert body["project_ids"] == []
