"""A worker keeps its latest datasets' plans by what each plan is made of, never by dataset id alone
(issue 28): a dataset made after the newest one was deleted (on SQLite it once got that one's id)
was generated from the deleted dataset's plan, so seeds 103-106 wrote the bytes of seeds 101/102."""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys
from pathlib import Path

from app.core.datasets.models import Dataset
from app.core.jobs.plans import plan_for
from app.core.library.models import SchemaDoc
from app.core.settings import Settings
from tests.api_client import Api
from tests.datasets.flow import create_dataset, download, upload_schema, wait_for
from tests.paths import BENCH

TDG = Path(sys.executable).with_name("tdg")
SCHEMA = "customer_order.schema.json"
COUNT = 400


def _shell(seed: int) -> bytes:
    cmd = [str(TDG), "generate", str(BENCH / SCHEMA), "-n", str(COUNT), "-f", "csv", "-o", "-", "--seed", str(seed)]
    return subprocess.run(cmd, capture_output=True, timeout=120, check=True).stdout


async def test_a_dataset_after_a_deleted_one_is_generated_from_its_own_seed(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    project_id = (await api.create_project(admin, "seeds"))["project_id"]
    schema_id = (await upload_schema(api, admin, (BENCH / SCHEMA).read_bytes(), SCHEMA))["schema_id"]

    first = await create_dataset(api, admin, project_id, schema_id, COUNT, types=["csv"], params={"seed": 101})
    assert (await wait_for(api, admin, first["dataset_id"]))["status"] == "completed"
    first_bytes = (await download(api, admin, first["dataset_id"], "csv")).content
    await api.call("DELETE", f"/datasets/{first['dataset_id']}", admin, 200)

    # the same worker (the tests' pool has one), the same schema, another seed
    second = await create_dataset(api, admin, project_id, schema_id, COUNT, types=["csv"], params={"seed": 103})
    assert second["dataset_id"] > first["dataset_id"]
    assert (await wait_for(api, admin, second["dataset_id"]))["status"] == "completed"
    served = (await download(api, admin, second["dataset_id"], "csv")).content

    shell = _shell(103)
    assert len(shell) > 10_000
    assert hashlib.sha256(served).hexdigest() == hashlib.sha256(shell).hexdigest()
    assert hashlib.sha256(first_bytes).hexdigest() == hashlib.sha256(_shell(101)).hexdigest()


def test_two_rows_with_one_id_get_the_plans_of_their_own_inputs(settings: Settings) -> None:
    """The worker's plan_for itself, given two datasets that carry the same id (as a reused id
    did) and other seeds, record counts or rules: each writes the bytes of its own inputs."""
    from app.core.storage import store_for

    content = (BENCH / SCHEMA).read_bytes()
    key = store_for(settings).put_blob(content)
    schema = SchemaDoc(id=1, tenant_id=1, name="s", type="json_schema", version="2020-12", filename=SCHEMA,
                       size_bytes=len(content), sha256=key, storage_key=key, roots=["#"], default_root="#",
                       field_count=1)

    def written(**inputs: object) -> bytes:
        dataset = Dataset(id=7, tenant_id=1, project_id=1, schema_id=1, name="d", **inputs)  # type: ignore[arg-type]
        out = io.BytesIO()
        plan_for(settings, dataset, schema).write("csv", out)
        return out.getvalue()

    base = {"record_count": 50, "params": {"seed": 101}, "rules": []}
    seen = {
        written(**base),
        written(**{**base, "params": {"seed": 103}}),
        written(**{**base, "record_count": 60}),
        written(**{**base, "rules": [{"path": "status", "enum": ["paid"]}]}),
    }
    assert len(seen) == 4
    assert written(**base) == written(**base)
