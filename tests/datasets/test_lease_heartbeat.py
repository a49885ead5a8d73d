"""A shard's lease lives as long as its worker, not its progress: one block that takes several
leases to generate (a wide record) is still the first attempt's, and the dataset completes with
the bytes of one uninterrupted run. Before the heartbeat the reaper re-queued it after each lease
and the dataset failed after three attempts ("its workers stopped responding")."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from app.core.settings import Settings
from tests.api_client import Api
from tests.datasets.flow import create_dataset, download, upload_schema, wait_for
from tests.datasets.processes import expected_sha256

LEASE_SECONDS = 2.0
FIELDS = 3000  # one 4,096-record block: 8.5 s here (1,000 fields took 1.8 s once blocks were drawn in sub-blocks)
RECORDS = 4096  # one block: no progress update between its start and its end
SEED = 5
WIDE = json.dumps({
    "type": "object",
    "properties": {f"f{i}": {"type": "string", "pattern": "^[a-z]{8}-[0-9]{4}$"} for i in range(FIELDS)},
    "required": [f"f{i}" for i in range(FIELDS)],
}).encode()


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"job_lease_seconds": LEASE_SECONDS})


async def test_a_block_longer_than_the_lease_keeps_its_shard(api: Api) -> None:
    root = api.root
    assert root is not None
    project = await api.create_project(root, "Wide")
    schema = await upload_schema(api, root, WIDE, "wide.schema.json")
    ds = await create_dataset(api, root, project["project_id"], schema["schema_id"], RECORDS, types=["csv"],
                              params={"seed": SEED})
    done = await wait_for(api, root, ds["dataset_id"], timeout=600)
    assert done["status"] == "completed", done
    assert done["attempt"] == 1, done  # never re-queued
    generating = datetime.fromisoformat(done["finished_at"]) - datetime.fromisoformat(done["started_at"])
    # the test means something only if the block really outlasted the lease, several times
    assert generating.total_seconds() > 2 * LEASE_SECONDS, generating
    expected = expected_sha256(WIDE, "wide.schema.json", {"seed": SEED}, RECORDS, "csv")
    assert done["files"][0]["sha256"] == expected
    r = await download(api, root, ds["dataset_id"], "csv")
    assert r.status_code == 200 and r.headers["x-content-sha256"] == expected
