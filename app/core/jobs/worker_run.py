"""One shard of a dataset, run inside a worker process (local pool or Celery worker).

A generate shard compiles the plan (cached per process), takes over its row (fenced by attempt)
and writes its record range of every requested file as parts, all formats in one pass
(temporary names, fsync, rename; a sha256 only for a part that is a whole file). A heartbeat
thread renews its lease all along (app/core/jobs/heartbeat.py), progress updates publish how far
it got. Every TDG_JOB_CHECKPOINT_SECONDS it closes its parts at a block edge and records them
(fenced): a successor after a lapsed lease resumes there, and the joined bytes are those of one
uninterrupted run. When the dispatcher asks (a worker idles), a progress update also splits the
shard: it keeps the first half of what it has left and queues the rest as a new shard. The
shard whose completion makes the count whole claims the assembly and runs it at once: parts
that are whole files are hard-linked into place, the others joined in the kernel and hashed,
and one fenced transaction records the files, the status, the domain event and the creator's
notification. Losing the fence (cancelled, failed elsewhere, or re-queued after a lapsed lease)
stops the run and removes the parts it had not recorded; any failure fails the dataset with a
reason."""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any, TypeVar

import orjson
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session

from app.core.database import make_sync_engine
from app.core.datasets.models import Dataset, DatasetFile, DatasetShard, DatasetStatus, ShardKind, ShardStatus
from app.core.errors import DomainError
from app.core.generation import write_many
from app.core.jobs.db_retry import retry_db
from app.core.jobs.documents import zip_parts
from app.core.jobs.heartbeat import Heartbeat
from app.core.jobs.outcomes import record_outcome
from app.core.jobs.plans import invalid_records, plan_for, warm_up
from app.core.jobs.sharding import block_edge, split_point
from app.core.library.models import SchemaDoc
from app.core.models import utcnow
from app.core.repositories.jobs import (
    JobRepository,
    TakenOver,
    fenced_dataset_finish,
    fenced_shard_update,
    lock_dataset,
    record_parts,
    record_progress,
    shard_stop,
    split_shard,
    split_wanted,
)
from app.core.settings import Settings
from app.core.storage import store_for
from app.core.storage.files import (
    COVERAGE,
    LABELS,
    Sink,
    WrittenFile,
    file_name,
    final_file_path,
    is_documents,
    remove_tree,
    shard_work_dir,
    zip_path,
)

log = logging.getLogger("tdg.worker")
_engines: dict[str, Engine] = {}
_settings: dict[bytes, Settings] = {}
PROGRESS_EVERY_SECONDS = 0.5
T = TypeVar("T")


class Fenced(Exception):
    """This worker no longer owns the shard (or its dataset stopped running)."""


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def engine_for(url: str) -> Engine:
    engine = _engines.get(url)
    if engine is None:
        engine = _engines[url] = make_sync_engine(url)
    return engine


def settings_of(payload: dict[str, Any]) -> Settings:
    """The Settings an executor sent (validated once per process: every shard sends the same)."""
    key = orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)
    settings = _settings.get(key)
    if settings is None:
        settings = _settings[key] = Settings.model_validate(payload)
    return settings


def connect_ahead(settings_payload: dict[str, Any]) -> None:
    """A pool process's start: its database engine and one pooled connection, before any shard."""
    settings = settings_of(settings_payload)
    with engine_for(settings.database_url).connect() as conn:
        conn.exec_driver_sql("SELECT 1")


def run_shard(settings_payload: dict[str, Any], shard_id: int, attempt: int) -> str:
    """Entry point for executors: run a shard the dispatcher claimed; returns what happened."""
    settings = settings_of(settings_payload)
    return _run_claimed(settings, engine_for(settings.database_url), shard_id, attempt)


def _claimed(engine: Engine, shard_id: int, attempt: int) -> tuple[DatasetShard, Dataset, SchemaDoc] | str:
    """The claimed shard, its dataset and schema, detached; or why there is nothing to run."""
    with Session(engine) as session:
        repo = JobRepository(session)
        shard = repo.shard(shard_id)
        dataset = repo.dataset(shard.dataset_id) if shard else None
        schema = repo.schema(dataset.schema_id) if dataset else None
        if shard is None or dataset is None or schema is None:
            return "vanished"
        if (
            shard.status != ShardStatus.running.value
            or shard.attempt != attempt
            or dataset.status != DatasetStatus.running.value
        ):
            return "skipped"
        session.expunge_all()
    return shard, dataset, schema


def _run_claimed(settings: Settings, engine: Engine, shard_id: int, attempt: int) -> str:
    lease = timedelta(seconds=settings.job_lease_seconds)
    retry = settings.job_database_retry_seconds
    found = retry_db(lambda: _claimed(engine, shard_id, attempt), "reading a claimed shard", retry)
    if isinstance(found, str):
        return found
    shard, dataset, schema = found
    job: _ShardJob = (_Assembly if shard.kind == ShardKind.assemble.value else _Generate)(
        settings, engine, dataset, schema, shard, lease
    )
    # the heartbeat renews the dispatcher's claim while the plan compiles (a cold process, a
    # wide schema: longer than a lease), then this worker's own attempt once it took over
    with Heartbeat(engine, shard.dataset_id, shard_id, attempt, lease) as heartbeat:
        # compiled before taking over: an earlier attempt's worker, if any, goes on until then
        job.prepare()
        with heartbeat.switching:
            mine = retry_db(lambda: _take_over(engine, shard, lease), "taking a shard over", retry)
            if mine is not None:
                heartbeat.attempt = mine.attempt
                heartbeat.lost.clear()  # a renewal of the claim may have missed a re-queue and re-claim
        if mine is None:
            return "skipped"
        job.heartbeat = heartbeat
        outcome = job.run(mine.attempt, mine.outputs)
    if isinstance(outcome, tuple):  # this shard's completion made the count whole: assemble now
        return _run_claimed(settings, engine, *outcome)
    return outcome


def _take_over(engine: Engine, shard: DatasetShard, lease: timedelta) -> TakenOver | None:
    with Session(engine) as session:
        mine = JobRepository(session).take_over(shard, worker_id(), utcnow(), lease)
        session.commit()
    return mine


class _ShardJob:
    def __init__(
        self,
        settings: Settings,
        engine: Engine,
        dataset: Dataset,
        schema: SchemaDoc,
        shard: DatasetShard,
        lease: timedelta,
    ) -> None:
        if dataset.id is None or shard.id is None:
            raise ValueError("A shard job runs a stored shard of a stored dataset (both rows need their id).")
        self.dataset_id: int = dataset.id
        self.shard_id: int = shard.id
        self.settings = settings
        self.store = store_for(settings, work=True)
        self.engine = engine
        self.dataset = dataset
        self.schema = schema
        self.shard = shard
        self.lease = lease
        self.attempt = 0
        self.types = list(dataset.types) or list(settings.default_types)
        self.stop = shard.stop  # lowered when this worker gives the rest of its range away
        self.done = 0
        self.last_beat = 0.0
        self.prepare_error: Exception | None = None
        self.heartbeat: Heartbeat | None = None
        # the parts finished so far, earlier attempts' included, as recorded in the shard's row
        self.outputs: list[dict[str, Any]] = []
        self.parts_written = 0  # this attempt's parts go in numbered folders, one per checkpoint
        self.pending: str | None = None  # the folder of the parts being written, until recorded
        self.cut: int | None = None  # where the parts being written end early (a checkpoint)
        self.part_began = 0.0

    @property
    def work_rel(self) -> str:
        return shard_work_dir(self.dataset_id, self.shard.shard_index, self.attempt)

    def prepare(self) -> None:
        """Work done before take-over; a failure is kept and recorded once this worker owns the shard."""

    def work(self) -> str | tuple[int, int]:
        """What happened, or the assembly (id, attempt) this worker claimed to run next."""
        raise NotImplementedError

    def run(self, attempt: int, outputs: list[dict[str, Any]]) -> str | tuple[int, int]:
        self.attempt = attempt
        self.outputs = list(outputs)
        self.done = sum(int(o["records"]) for o in outputs)
        try:
            if self.prepare_error is not None:
                raise self.prepare_error
            return self.work()
        except Fenced:
            self._drop_pending()
            return "fenced"
        except Exception as exc:
            if self._lost():  # a failure from losing the shard (a cancel aborted our uploads)
                self._drop_pending()
                return "fenced"
            self._fail(self._reason(exc))
            return "failed"

    def _reason(self, exc: Exception) -> str:
        """The sentence a failed dataset shows for `exc`."""
        if isinstance(exc, DomainError):
            return exc.detail
        if isinstance(exc, OSError):
            return f"Writing the dataset files failed: {exc.strerror or exc.__class__.__name__}."
        log.exception(
            "dataset %s shard %s: unexpected error", self.dataset_id, self.shard.shard_index, exc_info=exc
        )
        return "Generation failed unexpectedly; the error has been logged for the operators."

    def _lost(self) -> bool:
        """Whether the heartbeat found this worker no longer holds the shard."""
        return self.heartbeat is not None and self.heartbeat.lost.is_set()

    def _drop_pending(self) -> None:
        """Remove only what is not recorded: the recorded parts of this attempt are its successor's."""
        if self.pending is not None:
            self.store.remove(self.pending)

    def _beat(self, *, force: bool = False) -> None:
        """Publish progress (and renew the lease) at most every PROGRESS_EVERY_SECONDS; stop at
        once when the heartbeat found the fence lost."""
        if self._lost():
            raise Fenced
        now = time.monotonic()
        if not force and now - self.last_beat < PROGRESS_EVERY_SECONDS:
            return
        self.last_beat = now
        stop = self._retry(self._publish, "a progress update")
        if stop is None:
            raise Fenced
        self.stop = stop  # only once committed: a split rolled back must not shorten the range

    def _publish(self) -> int | None:
        """Progress and lease in one fenced transaction (a split too, when asked); returns where
        the shard's range now ends, as committed (None: fenced)."""
        with self.engine.begin() as conn:
            lock_dataset(conn, self.dataset_id)
            held = fenced_shard_update(
                conn, self.shard_id, self.attempt, records_done=self.done, lease_until=utcnow() + self.lease
            )
            if not held:
                return None
            if self.shard.kind == ShardKind.generate.value:
                record_progress(conn, self.dataset_id, self.dataset.record_count, len(self.types))
                if split_wanted(conn, self.shard_id):
                    self._split(conn)
            # the row's, not this object's: a retried transaction may have committed a split
            return (
                shard_stop(conn, self.shard_id) if self.shard.kind == ShardKind.generate.value else self.stop
            )

    def _split(self, conn: Connection) -> None:
        """Asked to split: keep the first half of what is left, queue the rest as a new shard."""
        position = self.shard.start + self.done // len(self.types)
        mid = split_point(position, self.stop, self.settings.split_records)
        if mid is not None and split_shard(conn, self.shard, self.attempt, mid, self.stop):
            log.info("dataset %s shard %s: split at record %s", self.dataset_id, self.shard.shard_index, mid)
        else:  # too little left: the dispatcher may ask another shard
            fenced_shard_update(conn, self.shard_id, self.attempt, split_wanted=False)

    def _retry(self, transaction: Callable[[], T], what: str) -> T:
        return retry_db(transaction, what, self.settings.job_database_retry_seconds)

    def _fail(self, reason: str) -> None:
        self._retry(lambda: self._record_failure(reason), "recording a failure")

    def _record_failure(self, reason: str) -> None:
        now = utcnow()
        with Session(self.engine) as session:
            conn = session.connection()
            lock_dataset(conn, self.dataset_id)
            if not (
                fenced_shard_update(conn, self.shard_id, self.attempt, lease_until=None)
                and fenced_dataset_finish(
                    conn,
                    self.dataset_id,
                    status=DatasetStatus.failed.value,
                    error=reason[:2000],
                    finished_at=now,
                    lease_until=None,
                    records_generated=0,
                )
            ):
                session.rollback()
                self._drop_pending()
                return
            JobRepository(session).drop_shards(self.dataset_id)
            record_outcome(
                session, self.dataset, DatasetStatus.failed, error=reason[:2000], finished_at=now, files=[]
            )
            # every shard's parts go before the failure is visible: a client that sees `failed`
            # finds nothing (the other shards' workers lose their fence at their next update)
            self.store.remove(f"datasets/{self.dataset_id}")
            session.commit()


class _Generate(_ShardJob):
    """Records [start, stop) of every requested file, as parts."""

    def prepare(self) -> None:
        try:
            self.plan = plan_for(self.settings, self.dataset, self.schema)
        except Exception as exc:
            self.prepare_error = exc

    def work(self) -> str | tuple[int, int]:
        plan = self.plan
        # where earlier attempts' recorded parts end (their files are kept and used as they are)
        position = max((int(o["start"]) + int(o["records"]) for o in self.outputs), default=self.shard.start)
        if self.outputs:
            log.warning(
                "dataset %s shard %s: attempt %s resumes at record %s (%s records of earlier attempts kept)",
                self.dataset_id,
                self.shard.shard_index,
                self.attempt,
                position,
                position - self.shard.start,
            )
        self._beat(force=True)
        for index, (first, last) in enumerate(plan.file_ranges()):
            a = max(first, position)
            # an empty dataset still has its one (empty) file
            if a >= min(last, self.stop) and not (first == last == a == self.stop and not self.outputs):
                continue
            while True:  # a part per checkpoint; self.stop may drop meanwhile (a split)
                a = self._write_part(index, first, last, a, min(last, self.stop))
                if a >= min(last, self.stop):
                    break
        return self._finish()

    def _write_part(self, index: int, first: int, last: int, a: int, b: int) -> int:
        """Records [a, b) of file `index` in every format, or up to the block edge where a
        checkpoint falls due or a split cuts the range; recorded in the shard's row (fenced).
        Returns where the part ends."""
        plan = self.plan
        header = a == first
        self.parts_written += 1
        self.pending = folder = f"{self.work_rel}/c{self.parts_written:04d}"
        self.cut = None
        self.part_began = time.monotonic()

        def limit() -> int:
            return self.stop if self.cut is None else min(self.stop, self.cut)

        # every format's part of this file at once: each chunk is generated once for all of
        # them; only a part that is a whole file keeps its hash (the others are hashed joined)
        # params.invalid_rate: the labels of this part's invalid records, a part of the one labels
        # file (file_index 0), joined in record order like the others
        labelled = plan.negative is not None
        kinds = [*self.types, LABELS] if labelled else list(self.types)
        # params.coverage: the set's report goes with the part holding record 0 (the set's records)
        report = _coverage_report(plan) if a == 0 and index == 0 else None
        if report is not None:
            kinds.append(COVERAGE)

        def produce(streams: Sequence[Sink]) -> list[int]:
            if report is not None:
                streams[-1].write(report)
            return write_many(
                plan,
                list(zip(self.types, streams, strict=False)),
                a,
                b,
                header=header,
                footer=b == last,
                progress=self._progress,
                limit=limit,
                labels=streams[len(self.types)] if labelled else None,
            )

        written = self.store.write_many(
            [f"{folder}/{file_name(fmt, index)}" for fmt in kinds],
            produce,
            hashing=header and b == last,
            give_up=self._lost,
        )
        end = min(b, limit())
        whole = header and end == last
        one_file = len(plan.file_ranges()) == 1
        self.outputs.extend(
            {
                "format": fmt,
                "file_index": 0 if fmt == LABELS else index,
                "start": a,
                "records": end - a,
                "path": part.path,
                "size_bytes": part.size_bytes,
                "sha256": part.sha256 if whole and (fmt != LABELS or one_file) else None,
                "whole": whole and (fmt != LABELS or one_file) and part.sha256 is not None,
            }
            for fmt, part in zip(kinds, written, strict=True)
        )
        if report is not None:  # the set's size: the coverage file's record count
            self.outputs[-1]["set_records"] = plan.coverage.size if plan.coverage is not None else 0
        held = self._retry(self._record_parts, "recording parts")
        if not held:
            raise Fenced
        self.pending = None
        return end

    def _record_parts(self) -> bool:
        with self.engine.begin() as conn:
            lock_dataset(conn, self.dataset_id)
            return record_parts(conn, self.shard_id, self.attempt, self.outputs, self.done)

    def _finish(self) -> str | tuple[int, int]:
        """Every part is recorded: the shard is done; the last one to finish claims the assembly."""
        return self._retry(self._finish_once, "finishing a shard")

    def _finish_once(self) -> str | tuple[int, int]:
        with Session(self.engine) as session:
            repo = JobRepository(session)
            counts = repo.finish_shard(self.shard_id, self.attempt, self.dataset_id, self.outputs, self.done)
            if counts is None:
                session.rollback()
                raise Fenced
            record_progress(session.connection(), self.dataset_id, self.dataset.record_count, len(self.types))
            done, shard_count = counts
            assembly = repo.assembly_of(self.dataset_id) if done >= shard_count else None
            claimed = None
            if (
                assembly is not None
                and assembly.id is not None
                and repo.claim_shard(assembly.id, assembly.attempt, utcnow(), self.lease, worker_id())
            ):
                claimed = (assembly.id, assembly.attempt)
            session.commit()
        return claimed if claimed is not None else "shard done"

    def _progress(self, n: int) -> None:
        self.done += n
        if self.cut is None and time.monotonic() - self.part_began >= self.settings.job_checkpoint_seconds:
            # close this part where the next chunk would start, and record it
            self.cut = block_edge(self.shard.start + self.done // len(self.types))
        self._beat()


class _Assembly(_ShardJob):
    """Every generate shard is done: put each file together from its parts, in shard order."""

    def work(self) -> str:
        began = time.monotonic()
        self._beat(force=True)
        shards = sorted(
            (s for s in self._retry(self._shards, "reading shards") if s.kind == ShardKind.generate.value),
            key=lambda s: s.start,
        )
        parts: dict[tuple[str, int], list[dict[str, Any]]] = {}
        for shard in shards:  # in record order (a split's shard comes after the others' indexes)
            if shard.status != ShardStatus.done.value:
                raise Fenced  # a re-queued dataset's stale assembly; its successor will run
            for out in shard.outputs:
                parts.setdefault((out["format"], out["file_index"]), []).append(out)
        files: list[DatasetFile] = []
        joined = 0
        order = [*self.types, LABELS, COVERAGE]
        for (fmt, index), pieces in sorted(parts.items(), key=lambda kv: (order.index(kv[0][0]), kv[0][1])):
            rel = final_file_path(self.dataset_id, fmt, index)
            if is_documents(self.dataset.params, fmt):  # the parts' documents, zipped
                written = zip_parts(
                    self.store, pieces, zip_path(rel), dataset_id=self.dataset_id,
                    record_count=self.dataset.record_count, beat=self._beat,
                )
            elif len(pieces) == 1 and pieces[0]["whole"]:
                self.store.place(pieces[0]["path"], rel)
                written = WrittenFile(rel, pieces[0]["size_bytes"], pieces[0]["sha256"])
            else:
                joined += 1
                written = self.store.concatenate([p["path"] for p in pieces], rel, self._beat)
            assert written.sha256 is not None
            files.append(
                DatasetFile(
                    dataset_id=self.dataset_id,
                    format=fmt,
                    file_index=index,
                    # the labels file: a line per invalid record
                    records=self._file_records(fmt, pieces),
                    size_bytes=written.size_bytes,
                    sha256=written.sha256,
                    path=written.path,
                )
            )
            self._beat()
        # fresh rows for each try: a failed commit leaves the last try's rows to its session
        completed = self._retry(
            lambda: self._complete([DatasetFile.model_validate(f.model_dump()) for f in files]),
            "completing a dataset",
        )
        if not completed:
            raise Fenced
        # the parts, and folders of runs from before shards existed, are no longer referenced
        self.store.remove(f"datasets/{self.dataset_id}/work")
        folder = self.store.local_path(f"datasets/{self.dataset_id}")
        for leftover in folder.glob("a*") if folder is not None else ():
            remove_tree(leftover)
        log.info(
            "dataset %s assembled: %d files, %d joined from parts, in %.2f s",
            self.dataset_id,
            len(files),
            joined,
            time.monotonic() - began,
        )
        return "completed"

    def _file_records(self, fmt: str, pieces: list[dict[str, Any]]) -> int:
        if fmt == LABELS:  # a line per invalid record
            return invalid_records(self.dataset)
        if fmt == COVERAGE:  # the records of the set the report describes
            return int(pieces[0].get("set_records", 0))
        return sum(p["records"] for p in pieces)

    def _shards(self) -> list[DatasetShard]:
        with Session(self.engine) as session:
            return JobRepository(session).shards_of(self.dataset_id)

    def _complete(self, files: list[DatasetFile]) -> bool:
        now = utcnow()
        with Session(self.engine) as session:
            conn = session.connection()
            lock_dataset(conn, self.dataset_id)
            if not (
                fenced_shard_update(
                    conn, self.shard_id, self.attempt, status=ShardStatus.done.value, lease_until=None
                )
                and fenced_dataset_finish(
                    conn,
                    self.dataset_id,
                    status=DatasetStatus.completed.value,
                    error=None,
                    finished_at=now,
                    lease_until=None,
                    progress=1.0,
                    records_generated=self.dataset.record_count,
                )
            ):
                session.rollback()
                return False
            JobRepository(session).drop_shards(self.dataset_id)
            session.add_all(files)
            record_outcome(
                session, self.dataset, DatasetStatus.completed, error=None, finished_at=now, files=files
            )
            session.commit()
        return True


__all__ = ["Fenced", "engine_for", "record_outcome", "run_shard", "settings_of", "warm_up", "worker_id"]


def _coverage_report(plan: Any) -> bytes | None:
    """params.coverage: the report of the set the plan's first records are (None without one)."""
    cover = getattr(plan, "coverage", None)
    if cover is None:
        return None
    # with the seed as a coverage plan answers it: the plan of these params is this file, byte for byte
    report = {**cover.report(), "seed": str(plan.params.seed)}
    return orjson.dumps(report, option=orjson.OPT_INDENT_2)
