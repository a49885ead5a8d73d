"""A format that was not pre-generated, written for a completed dataset when first asked for (a
download of another format), in a worker process like a shard."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from app.core.datasets.models import DatasetFile
from app.core.generation import write
from app.core.jobs.documents import zip_rendered
from app.core.jobs.plans import plan_for
from app.core.jobs.worker_run import engine_for, settings_of
from app.core.repositories.jobs import JobRepository
from app.core.storage import store_for
from app.core.storage.files import Sink, is_documents, rendered_file_path, zip_path


def render_format(settings_payload: dict[str, Any], dataset_id: int, fmt: str) -> list[dict[str, Any]]:
    """Write a format that was not pre-generated for a completed dataset; returns the file rows."""
    settings = settings_of(settings_payload)
    engine = engine_for(settings.database_url)
    with Session(engine) as session:
        repo = JobRepository(session)
        dataset = repo.dataset(dataset_id)
        schema = repo.schema(dataset.schema_id) if dataset else None
        if dataset is None or schema is None:
            return []
        session.expunge_all()
    plan = plan_for(settings, dataset, schema)
    rows: list[DatasetFile] = []
    for index, (start, stop) in enumerate(plan.file_ranges()):
        rel = rendered_file_path(dataset_id, fmt, index)
        documents = is_documents(dataset.params, fmt)
        if documents:
            rel = zip_path(rel)

        def produce(streams: Sequence[Sink], a: int = start, b: int = stop, zipped: bool = documents) -> int:
            if zipped:
                return zip_rendered(plan, streams[0], a, b, dataset_id)
            return write(plan, fmt, streams[0], a, b)

        (written,) = store_for(settings, work=True).write_many([rel], produce)
        if written.sha256 is None:  # write_many hashes unless told not to
            raise RuntimeError(f"{rel} was written without its sha256.")
        rows.append(
            DatasetFile(
                dataset_id=dataset_id,
                format=fmt,
                file_index=index,
                records=stop - start,
                size_bytes=written.size_bytes,
                sha256=written.sha256,
                path=written.path,
            )
        )
    out = [
        {
            "format": r.format,
            "file_index": r.file_index,
            "records": r.records,
            "size_bytes": r.size_bytes,
            "sha256": r.sha256,
            "path": r.path,
        }
        for r in rows
    ]
    # recorded here, in one transaction per format: of two renders racing (two downloads at once)
    # one records the rows and the other finds them (the bytes are the same)
    with Session(engine) as session:
        session.add_all(rows)
        try:
            session.commit()
        except IntegrityError:
            session.rollback()
    return out


__all__ = ["render_format"]
