"""The shell path and the service path are one engine: `tdg generate` (a real subprocess) writes the
same bytes as a dataset downloaded over REST, for the same schema, rules, params and seed."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from tests.api_client import Api
from tests.datasets.flow import create_dataset, download, upload_schema, wait_for
from tests.paths import BENCH

TDG = Path(sys.executable).with_name("tdg")
RULES = [{"path": "amount", "min": 10, "max": 20}, {"path": "status", "enum": ["paid", "shipped"]},
         {"path": "notes", "null_rate": 0.5}]


async def test_cli_and_rest_produce_the_same_bytes(api: Api, tmp_path: Path) -> None:
    _, admin = await api.create_tenant()
    project = await api.create_project(admin, "parity")
    for schema_file, fmt in (("customer_order.schema.json", "csv"), ("customer_order.xsd", "xml")):
        schema = await upload_schema(api, admin, (BENCH / schema_file).read_bytes(), schema_file)
        rules = RULES if fmt == "csv" else []
        constraint_id = None
        if rules:
            constraint_id = (await api.call("POST", "/constraints", admin, 201, json={
                "name": "parity", "schema_id": schema["schema_id"], "rules": rules}))["constraint_id"]
        params = {"seed": 20261121, "locale": "fr_FR"}
        dataset = await create_dataset(api, admin, project["project_id"], schema["schema_id"], 700,
                                       types=[fmt], params=params, constraint_set_id=constraint_id)
        assert (await wait_for(api, admin, dataset["dataset_id"]))["status"] == "completed"
        served = (await download(api, admin, dataset["dataset_id"], fmt)).content

        cmd = [str(TDG), "generate", str(BENCH / schema_file), "-n", "700", "-f", fmt, "-o", "-",
               "--seed", "20261121", "--locale", "fr_FR"]
        if rules:
            rules_file = tmp_path / "rules.json"
            rules_file.write_text(json.dumps(rules))
            cmd += ["--constraints", str(rules_file)]
        shell = subprocess.run(cmd, capture_output=True, timeout=120, check=True).stdout
        assert len(shell) > 10_000
        assert hashlib.sha256(shell).hexdigest() == hashlib.sha256(served).hexdigest(), (schema_file, fmt)
