"""One dataset generation, run inside a worker process (local pool or Celery worker).

Take over the dataset (fenced by attempt), compile the plan, write every requested format file
by file (temporary name, fsync, rename, sha256), renew the lease with each progress update, and
finish with one fenced transaction that records the files, the status, the domain event and the
creator's notification. Losing the fence (cancelled, or re-queued after a lapsed lease) stops
the run and removes what it wrote; so does any failure, which is recorded with a reason."""

from __future__ import annotations

import logging
import os
import socket
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from app.core import preferences
from app.core.clock import iso
from app.core.database import make_sync_engine
from app.core.errors import DomainError
from app.core.jobs.files import dataset_dir, relative_file_path, remove_tree, write_atomically
from app.core.models import DatasetFile, DatasetStatus, Notification, User, utcnow
from app.core.repositories.jobs import JobRepository, fenced_update
from app.core.schema_cache import load_cached
from app.core.services import events
from app.core.settings import Settings
from app.core.storage import BlobStore

log = logging.getLogger("tdg.worker")
_engines: dict[str, Engine] = {}
PROGRESS_EVERY_SECONDS = 0.5


class Fenced(Exception):
    """This worker no longer owns the dataset."""


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def engine_for(url: str) -> Engine:
    engine = _engines.get(url)
    if engine is None:
        engine = _engines[url] = make_sync_engine(url)
    return engine


def run_dataset(settings_payload: dict[str, Any], dataset_id: int, attempt: int) -> str:
    """Entry point for executors; returns what happened (for logs)."""
    settings = Settings.model_validate(settings_payload)
    engine = engine_for(settings.database_url)
    lease = timedelta(seconds=settings.job_lease_seconds)
    with Session(engine) as session:
        repo = JobRepository(session)
        dataset = repo.dataset(dataset_id)
        schema = repo.schema(dataset.schema_id) if dataset else None
        if dataset is None or schema is None:
            return "vanished"
        if dataset.status != DatasetStatus.running.value or dataset.attempt != attempt:
            return "skipped"
        session.expunge_all()
    # Compile under the dispatcher's longer claim lease, before taking over: a cold worker process
    # spends seconds on imports and vocabularies before its first progress update, and with a
    # short job lease the reaper re-queued the dataset in between, again and again.
    job = _Job(settings, engine, dataset, schema, lease)
    job.prepare()
    with Session(engine) as session:
        mine = JobRepository(session).take_over(dataset_id, attempt, worker_id(), utcnow(), lease)
        session.commit()
    if mine is None:
        return "skipped"
    return job.run(mine)


class _Job:
    def __init__(self, settings: Settings, engine: Engine, dataset: Any, schema: Any, lease: timedelta) -> None:
        self.settings = settings
        self.engine = engine
        self.dataset = dataset
        self.schema = schema
        self.attempt = 0
        self.lease = lease
        self.attempt_dir = dataset_dir(settings.data_dir, dataset.id)
        self.types = list(dataset.types) or list(settings.default_types)
        self.total = max(1, dataset.record_count * len(self.types))
        self.done = 0
        self.last_beat = 0.0
        self.plan: Any = None
        self.prepare_error: Exception | None = None

    def prepare(self) -> None:
        """Compile the plan; a failure is kept and recorded once this worker owns the dataset."""
        try:
            self.plan = compile_dataset(self.settings, self.dataset, self.schema)
        except Exception as exc:
            self.prepare_error = exc

    def run(self, attempt: int) -> str:
        self.attempt = attempt
        self.attempt_dir = dataset_dir(self.settings.data_dir, self.dataset.id) / f"a{attempt}"
        try:
            if self.prepare_error is not None:
                raise self.prepare_error
            files = self._generate()
            self._complete(files)
            return "completed"
        except Fenced:
            remove_tree(self.attempt_dir)
            return "fenced"
        except DomainError as exc:
            self._fail(exc.detail)
            return "failed"
        except OSError as exc:
            reason = exc.strerror or exc.__class__.__name__
            self._fail(f"Writing the dataset files failed: {reason}.")
            return "failed"
        except Exception:
            log.exception("dataset %s: unexpected generation error", self.dataset.id)
            self._fail("Generation failed unexpectedly; the error has been logged for the operators.")
            return "failed"

    # -- generation ------------------------------------------------------------------------

    def _generate(self) -> list[DatasetFile]:
        plan = self.plan
        self._beat(force=True)
        files: list[DatasetFile] = []
        for fmt in self.types:
            for index, (start, stop) in enumerate(plan.file_ranges()):
                rel = relative_file_path(self.dataset.id, self.attempt, fmt, index)
                written = write_atomically(
                    self.settings.data_dir, rel,
                    lambda stream, fmt=fmt, start=start, stop=stop: plan.write(
                        fmt, stream, start, stop, progress=self._progress),
                )
                files.append(DatasetFile(dataset_id=self.dataset.id, format=fmt, file_index=index, records=stop - start,
                                         size_bytes=written.size_bytes, sha256=written.sha256, path=written.path))
        return files

    def _progress(self, n: int) -> None:
        self.done += n
        self._beat()

    def _beat(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last_beat < PROGRESS_EVERY_SECONDS:
            return
        self.last_beat = now
        with self.engine.begin() as conn:
            held = fenced_update(
                conn, self.dataset.id, self.attempt, progress=min(0.99, self.done / self.total),
                records_generated=min(self.dataset.record_count, self.done // len(self.types)),
                lease_until=utcnow() + self.lease,
            )
        if not held:
            raise Fenced

    # -- outcome ---------------------------------------------------------------------------

    def _finish(self, status: DatasetStatus, *, error: str | None, files: list[DatasetFile]) -> bool:
        now = utcnow()
        with Session(self.engine) as session:
            held = fenced_update(session.connection(), self.dataset.id, self.attempt, status=status.value,
                                 error=error, finished_at=now, lease_until=None,
                                 progress=1.0 if status is DatasetStatus.completed else self.done / self.total,
                                 records_generated=self.dataset.record_count if status is DatasetStatus.completed
                                 else 0)
            if not held:
                session.rollback()
                return False
            for f in files:
                session.add(f)
            record_outcome(session, self.dataset, status, error=error, finished_at=now, files=files)
            session.commit()
        return True

    def _complete(self, files: list[DatasetFile]) -> None:
        if not self._finish(DatasetStatus.completed, error=None, files=files):
            raise Fenced
        # earlier attempts' leftovers (a worker that died mid-write) are no longer referenced
        for leftover in dataset_dir(self.settings.data_dir, self.dataset.id).glob("a*"):
            if leftover != self.attempt_dir:
                remove_tree(leftover)

    def _fail(self, reason: str) -> None:
        remove_tree(self.attempt_dir)
        self._finish(DatasetStatus.failed, error=reason[:2000], files=[])


def record_outcome(session: Session, dataset: Any, status: DatasetStatus, *, error: str | None,
                   finished_at: Any, files: list[DatasetFile]) -> None:
    """The domain event and the creator's notification of a finished dataset (caller commits)."""
    payload = {"dataset_id": dataset.id, "name": dataset.name, "project_id": dataset.project_id,
               "created_by": dataset.created_by, "schema_id": dataset.schema_id, "record_count": dataset.record_count,
               "status": status.value, "error": error, "finished_at": iso(finished_at),
               "files": [{"format": f.format, "file_index": f.file_index, "records": f.records,
                          "size_bytes": f.size_bytes, "sha256": f.sha256} for f in files]}
    event = "dataset.completed" if status is DatasetStatus.completed else "dataset.failed"
    events.record(session, event, tenant_id=dataset.tenant_id, data=payload)  # type: ignore[arg-type]
    creator = session.get(User, dataset.created_by) if dataset.created_by is not None else None
    if creator is not None and preferences.enabled(creator.notification_prefs, event, "in_app"):
        title = (f"Dataset '{dataset.name}' is ready" if status is DatasetStatus.completed
                 else f"Dataset '{dataset.name}' failed")
        session.add(Notification(tenant_id=dataset.tenant_id, user_id=dataset.created_by, type=event,
                                 title=title[:200], message=error or f"{dataset.record_count} records.",
                                 data={"dataset_id": dataset.id, "project_id": dataset.project_id}))


def compile_dataset(settings: Settings, dataset: Any, schema: Any) -> Any:
    """The generation plan of a dataset: its schema, its rule snapshot, its params and seed."""
    from app.generation.engine import compile_plan

    loaded = load_cached(BlobStore(settings.data_dir), schema.storage_key, schema.filename)
    params = dict(dataset.params)
    rules: list[Any] = []
    if dataset.rules:
        from app.generation.constraint_rules import parse_rules

        rules = parse_rules(loaded.field_tree(params.get("root")), dataset.rules)
    return compile_plan(loaded, rules, params, record_count=dataset.record_count)


def render_format(settings_payload: dict[str, Any], dataset_id: int, fmt: str) -> list[dict[str, Any]]:
    """Write a format that was not pre-generated for a completed dataset; returns the file rows."""
    settings = Settings.model_validate(settings_payload)
    engine = engine_for(settings.database_url)
    with Session(engine) as session:
        repo = JobRepository(session)
        dataset = repo.dataset(dataset_id)
        schema = repo.schema(dataset.schema_id) if dataset else None
        if dataset is None or schema is None:
            return []
        session.expunge_all()
    plan = compile_dataset(settings, dataset, schema)
    rows: list[DatasetFile] = []
    for index, (start, stop) in enumerate(plan.file_ranges()):
        rel = f"datasets/{dataset_id}/rendered/data-{index:04d}.{fmt}"
        written = write_atomically(settings.data_dir, rel, lambda s, a=start, b=stop: plan.write(fmt, s, a, b))
        rows.append(DatasetFile(dataset_id=dataset_id, format=fmt, file_index=index, records=stop - start,
                                size_bytes=written.size_bytes, sha256=written.sha256, path=written.path))
    out = [{"format": r.format, "file_index": r.file_index, "records": r.records, "size_bytes": r.size_bytes,
            "sha256": r.sha256, "path": r.path} for r in rows]
    # recorded here, in one transaction per format: of two renders racing (two downloads at once)
    # one records the rows and the other finds them (the bytes are the same)
    with Session(engine) as session:
        session.add_all(rows)
        try:
            session.commit()
        except IntegrityError:
            session.rollback()
    return out


__all__ = ["Fenced", "Path", "record_outcome", "render_format", "run_dataset", "worker_id"]
