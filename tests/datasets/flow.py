"""Helpers for the dataset tests: upload the benchmark schemas, create datasets and wait for
them over HTTP exactly as the spec's automated workflow does (poll `status`, stop on failed)."""

from __future__ import annotations

from typing import Any

import httpx
from sqlmodel import Session, col, select

from app.core.database import make_sync_engine
from app.core.datasets.models import DatasetShard
from tests.api_client import Actor, Api
from tests.paths import BENCH
from tests.support.waiting import eventually

ORDER_JSON = (BENCH / "customer_order.schema.json").read_bytes()
ORDER_XSD = (BENCH / "customer_order.xsd").read_bytes()
FINAL = ("completed", "failed", "cancelled")


async def upload_schema(api: Api, actor: Actor, content: bytes, filename: str, **data: str) -> dict[str, Any]:
    r = await api.request("POST", "/schemas", actor, files={"file": (filename, content)}, data=data)
    assert r.status_code == 201, r.text
    return r.json()


async def create_dataset(api: Api, actor: Actor, project_id: int, schema_id: int, record_count: int,
                         status: int = 201, **extra: Any) -> dict[str, Any]:
    body = {"name": extra.pop("name", "ds"), "project_id": project_id, "schema_id": schema_id,
            "record_count": record_count, **extra}
    return await api.call("POST", "/datasets/create", actor, status, json=body)


async def wait_for(api: Api, actor: Actor, dataset_id: int, *, until: tuple[str, ...] = FINAL,
                   progress_above: float = -1.0, timeout: float = 300.0) -> dict[str, Any]:
    """Poll GET /datasets/{id} until its status is one of `until` with more than `progress_above`
    done (a final state always stops)."""
    return await eventually(
        lambda: api.call("GET", f"/datasets/{dataset_id}", actor, 200),
        lambda body: (body["status"] in until and body["progress"] > progress_above) or body["status"] in FINAL,
        timeout=timeout, what=f"dataset {dataset_id} reaching {until}")


async def download(api: Api, actor: Actor, dataset_id: int, fmt: str, file_index: int | None = None,
                   **kwargs: Any) -> httpx.Response:
    params: dict[str, Any] = {"format": fmt}
    if file_index is not None:
        params["file_index"] = file_index
    return await api.request("GET", f"/data/{dataset_id}", actor, params=params, **kwargs)


async def login_form(api: Api, username: str, password: str) -> dict[str, str]:
    """Step 1 of the workflow: the form-encoded login; returns bearer headers."""
    r = await api.client.post("/api/v1/users/token", data={"username": username, "password": password})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["token_type"] == "bearer"
    return {"Authorization": f"Bearer {body['access_token']}"}


class ShardWatch:
    """Samples the shard rows of some datasets from the database while they run: which workers
    took part, and how many shards each had."""

    def __init__(self, database_url: str, dataset_ids: list[int]) -> None:
        self.engine = make_sync_engine(database_url)
        self.dataset_ids = dataset_ids
        self.workers: set[str] = set()
        self.seen_shards = 0
        self.first_shards: dict[int, int] = {}  # per dataset: its generate shards when first seen

    def _rows(self) -> list[DatasetShard]:
        with Session(self.engine) as session:
            return list(session.exec(select(DatasetShard).where(col(DatasetShard.dataset_id).in_(self.dataset_ids))))

    def sample(self) -> None:
        rows = self._rows()
        for dataset_id in self.dataset_ids:
            mine = [r for r in rows if r.dataset_id == dataset_id and r.kind == "generate"]
            self.seen_shards = max(self.seen_shards, len(mine))
            if mine:
                self.first_shards.setdefault(dataset_id, len(mine))
        self.workers |= {r.locked_by for r in rows if r.locked_by and not r.locked_by.startswith("dispatcher:")}

    def left(self) -> int:
        return len(self._rows())

    def close(self) -> None:
        self.engine.dispose()
