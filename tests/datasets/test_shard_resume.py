"""A shard whose worker died resumes from its last recorded part, not from its start: `tdg serve`
(one worker, parts closed every fraction of a second) is killed with -9 once the shard has
recorded parts past the middle of its second file, the dead worker's lease is expired, and the
restarted server's worker says where it resumes; every file of every format is byte-identical to
an uninterrupted single-process run (a resumed part starts mid-file, without a header)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlmodel import Session, col, select

from app.core.database import make_sync_engine
from app.core.datasets.models import DatasetShard, ShardKind
from tests.datasets.flow import ORDER_JSON
from tests.datasets.processes import Proc, expected_file_sha256s, free_port, service_env, start_serve
from tests.datasets.test_crash_recovery import WAIT, _Client
from tests.support.processes import expire_leases
from tests.support.waiting import eventually_sync

RECORDS = 120_000
PER_FILE = 50_000  # file edges inside blocks: parts are closed at block edges, files are not
SEED = 31
TYPES = ["csv", "json", "xml"]
KILL_AFTER = PER_FILE + 4096  # recorded parts reach into the second file


def _recorded_end(database_url: str, dataset_id: int) -> int:
    """Where the recorded parts of the dataset's generate shard end (0: none yet)."""
    engine = make_sync_engine(database_url)
    try:
        with Session(engine) as session:
            outputs = session.exec(select(DatasetShard.outputs).where(
                col(DatasetShard.dataset_id) == dataset_id, DatasetShard.kind == ShardKind.generate.value)).first()
    finally:
        engine.dispose()
    return max((int(o["start"]) + int(o["records"]) for o in outputs or []), default=0)


def test_a_killed_shard_resumes_from_its_last_recorded_part(database_url: str, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    # a long lease: the test expires the killed worker's, so a slow machine never re-queues by itself
    env = service_env(database_url, data_dir, TDG_WORKERS="1", TDG_JOB_LEASE_SECONDS="600",
                      TDG_JOB_CHECKPOINT_SECONDS="0.3", TDG_DISPATCH_INTERVAL_SECONDS="0.2")
    port = free_port()
    server: Proc | None = start_serve(env, tmp_path / "serve1.log", port)
    try:
        client = _Client(port)
        project = client.call("POST", "/projects/create", 201, json={"name": "Resume", "description": ""})
        schema = client.call("POST", "/schemas", 201, files={"file": ("customer_order.schema.json", ORDER_JSON)})
        params: dict[str, Any] = {"seed": SEED, "records_per_file": PER_FILE}
        ds = client.call("POST", "/datasets/create", 201, json={
            "name": "resumed", "project_id": project["project_id"], "schema_id": schema["schema_id"],
            "record_count": RECORDS, "types": TYPES, "params": params})
        did = ds["dataset_id"]
        recorded = eventually_sync(lambda: _recorded_end(database_url, did), lambda end: end >= KILL_AFTER,
                                   timeout=WAIT, interval=0.02, what="parts recorded into the second file")
        server.kill9()
        client.close()
        kept = _recorded_end(database_url, did)  # a part may have been recorded since
        assert KILL_AFTER <= recorded <= kept < RECORDS, (recorded, kept)
        assert expire_leases(database_url, did) == 1

        server = start_serve(env, tmp_path / "serve2.log", port)
        client = _Client(port)
        body = eventually_sync(lambda: client.call("GET", f"/datasets/{did}", 200),
                               lambda b: b["status"] not in ("queued", "running"), timeout=WAIT, interval=0.2)
        assert body["status"] == "completed", body
        assert body["attempt"] == 2, body
        assert f"attempt 2 resumes at record {kept} " in server.output(), server.output()[-3000:]
        for fmt in TYPES:
            expected = expected_file_sha256s(ORDER_JSON, "customer_order.schema.json", params, RECORDS, fmt)
            got = [f["sha256"] for f in sorted(body["files"], key=lambda f: f["file_index"]) if f["format"] == fmt]
            assert got == expected, fmt
        r = client.http.get(f"/data/{did}", params={"format": "json", "file_index": 1})
        assert r.status_code == 200 and r.headers["x-content-sha256"] == expected_file_sha256s(
            ORDER_JSON, "customer_order.schema.json", params, RECORDS, "json")[1]
        # the assembling worker removes the parts right after its completing commit
        folder = data_dir / "datasets" / str(did)
        eventually_sync(lambda: sorted(p.parent.name for p in folder.rglob("*") if p.is_file()),
                        lambda left: left == ["files"] * 9, timeout=WAIT, what="only the nine files left")
        client.close()
    finally:
        if server is not None:
            server.stop()
