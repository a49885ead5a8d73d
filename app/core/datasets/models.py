"""The dataset tables: a generation request, its shards of work and its files."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, DateTime, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.core.models import NEVER_REUSE_IDS, utcnow


class DatasetStatus(StrEnum):
    queued = "queued"
    running = "running"
    completed = "completed"
    failed = "failed"
    cancelled = "cancelled"
    expired = "expired"  # completed, then its files were purged by the tenant's retention period


class Dataset(SQLModel, table=True):
    """A generation request and its lifecycle. While running, its work lives in DatasetShard rows
    (each with its own lease and fence); `attempt` is the highest attempt any of them reached."""

    __tablename__ = "dataset"
    __table_args__ = (Index("ix_dataset_status_startable", "status", "startable"), NEVER_REUSE_IDS)
    id: int | None = Field(default=None, primary_key=True)
    tenant_id: int = Field(foreign_key="tenant.id", index=True)
    project_id: int = Field(foreign_key="project.id", index=True)
    schema_id: int = Field(foreign_key="schema_doc.id", index=True)
    constraint_set_id: int | None = Field(default=None, foreign_key="constraint_set.id")
    name: str = Field(max_length=200)
    record_count: int = Field(sa_type=BigInteger)
    types: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    params: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    # the rules as they were when the dataset was created: later edits of the set change nothing
    rules: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    status: str = Field(default=DatasetStatus.queued.value, max_length=16)
    startable: bool = True  # False while `params.deferred` waits for the manual trigger
    progress: float = 0.0
    records_generated: int = Field(default=0, sa_type=BigInteger)
    error: str | None = None
    attempt: int = 0
    locked_by: str | None = Field(default=None, max_length=100)
    lease_until: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    # generation shards of the current run and how many of them have finished (the one whose
    # increment reaches `shard_count` hands the assembly over)
    shard_count: int = 0
    shards_done: int = 0
    created_by: int | None = Field(default=None, foreign_key="user_account.id")
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
    started_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    finished_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))


class ShardKind(StrEnum):
    generate = "generate"  # writes the parts of records [start, stop) in every requested format
    assemble = "assemble"  # joins the parts into the dataset's files once every generate shard is done


class ShardStatus(StrEnum):
    waiting = "waiting"  # the assembly, until the last generate shard finishes
    queued = "queued"
    running = "running"
    done = "done"


class DatasetShard(SQLModel, table=True):
    """One unit of work of a running dataset, run by any worker (local pool or Celery). Its
    `attempt` fences every update its worker makes; `lease_until` is the worker's heartbeat."""

    __tablename__ = "dataset_shard"
    __table_args__ = (
        UniqueConstraint("dataset_id", "shard_index", name="uq_dataset_shard"),
        Index("ix_dataset_shard_status", "status", "lease_until"),
        NEVER_REUSE_IDS,
    )
    id: int | None = Field(default=None, primary_key=True)
    dataset_id: int = Field(foreign_key="dataset.id", index=True, ondelete="CASCADE")
    shard_index: int
    kind: str = Field(max_length=10)
    start: int = Field(default=0, sa_type=BigInteger)
    stop: int = Field(default=0, sa_type=BigInteger)
    status: str = Field(max_length=10)
    attempt: int = 0
    locked_by: str | None = Field(default=None, max_length=100)
    lease_until: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    records_done: int = Field(default=0, sa_type=BigInteger)  # records written, summed over formats
    # the dispatcher asks the worker of a running generate shard to give half of what it has left
    # to an idle worker; the worker itself cuts its range (it alone knows where it is)
    split_wanted: bool = False
    # what a finished generate shard wrote: [{format, file_index, path, size_bytes, sha256, whole}]
    outputs: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))


class DatasetFile(SQLModel, table=True):
    __tablename__ = "dataset_file"
    __table_args__ = (
        UniqueConstraint("dataset_id", "format", "file_index", name="uq_dataset_file"),
        NEVER_REUSE_IDS,
    )
    id: int | None = Field(default=None, primary_key=True)
    dataset_id: int = Field(foreign_key="dataset.id", index=True, ondelete="CASCADE")
    format: str = Field(max_length=10)
    file_index: int = 0
    records: int = Field(sa_type=BigInteger)
    size_bytes: int = Field(sa_type=BigInteger)
    sha256: str = Field(max_length=64)
    path: str = Field(max_length=500)  # relative to the data directory
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
