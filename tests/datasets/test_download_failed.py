"""Downloading a dataset that failed (or was cancelled) says why it has no files (issue 28): 409 with
the dataset's reason in `detail` over REST, and the same sentence as the GraphQL error of the
download link mutation; a dataset still running keeps the plain "once it is completed" 409."""

from __future__ import annotations

import json

from tests.api_client import Api
from tests.datasets.flow import create_dataset, download, upload_schema, wait_for

# generates, but not 10 records with unique codes from five values: fails in the job
BROKEN = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": ["code"],
          "properties": {"code": {"type": "integer", "minimum": 1, "maximum": 5}}}
LINK = """mutation Link($dataset_id: Int!, $format: String!) {
  create_download_link(dataset_id: $dataset_id, format: $format, file_index: 0) { url }
}"""


async def test_a_failed_dataset_download_is_409_with_the_reason(api: Api) -> None:
    _, admin = await api.create_tenant()
    project_id = (await api.create_project(admin, "failing"))["project_id"]
    schema_id = (await upload_schema(api, admin, json.dumps(BROKEN).encode(), "broken.json"))["schema_id"]
    unique = await api.call("POST", "/constraints", admin, 201, json={
        "name": "unique codes", "schema_id": schema_id, "rules": [{"path": "code", "unique": True}]})
    made = await create_dataset(api, admin, project_id, schema_id, 10, types=["csv"],
                                constraint_set_id=unique["constraint_id"])
    failed = await wait_for(api, admin, made["dataset_id"])
    assert failed["status"] == "failed" and failed["error"]

    r = await download(api, admin, made["dataset_id"], "csv")
    assert r.status_code == 409, r.text
    detail = r.json()["detail"]
    assert detail == f"Dataset {made['dataset_id']} is failed, so it has no files: {failed['error']}"

    body = await api.graphql(LINK, {"dataset_id": made["dataset_id"], "format": "csv"}, admin)
    (error,) = body["errors"]
    assert error["message"] == detail
    assert error["extensions"]["code"] == "dataset_not_completed"


async def test_a_dataset_not_yet_done_still_says_to_wait(api: Api) -> None:
    _, admin = await api.create_tenant()
    project_id = (await api.create_project(admin, "deferred"))["project_id"]
    schema_id = (await upload_schema(api, admin, json.dumps(BROKEN).encode(), "broken.json"))["schema_id"]
    # deferred: queued until started by hand, so it stays queued for this test
    made = await create_dataset(api, admin, project_id, schema_id, 3, types=["csv"], params={"deferred": True})
    r = await download(api, admin, made["dataset_id"], "csv")
    assert r.status_code == 409
    assert r.json()["detail"].endswith("files can be downloaded once it is completed.")
