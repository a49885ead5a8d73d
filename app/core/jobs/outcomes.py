"""What a finished dataset leaves besides its files: the domain event (webhooks, the subscription)
and its creator's notification, written in the transaction that finishes it."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from app.core import preferences
from app.core.clock import iso
from app.core.datasets.models import Dataset, DatasetFile, DatasetStatus
from app.core.notifications.models import Notification
from app.core.services import events
from app.core.users.models import User


def record_outcome(
    session: Session,
    dataset: Dataset,
    status: DatasetStatus,
    *,
    error: str | None,
    finished_at: datetime,
    files: list[DatasetFile],
) -> None:
    """The domain event and the creator's notification of a finished dataset (caller commits)."""
    payload = {
        "dataset_id": dataset.id,
        "name": dataset.name,
        "project_id": dataset.project_id,
        "created_by": dataset.created_by,
        "schema_id": dataset.schema_id,
        "record_count": dataset.record_count,
        "status": status.value,
        "error": error,
        "finished_at": iso(finished_at),
        "files": [
            {
                "format": f.format,
                "file_index": f.file_index,
                "records": f.records,
                "size_bytes": f.size_bytes,
                "sha256": f.sha256,
            }
            for f in files
        ],
    }
    event = "dataset.completed" if status is DatasetStatus.completed else "dataset.failed"
    events.record(session, event, tenant_id=dataset.tenant_id, data=payload)
    creator_id = dataset.created_by
    creator = session.get(User, creator_id) if creator_id is not None else None
    if (
        creator_id is not None
        and creator is not None
        and preferences.enabled(creator.notification_prefs, event, "in_app")
    ):
        title = (
            f"Dataset '{dataset.name}' is ready"
            if status is DatasetStatus.completed
            else f"Dataset '{dataset.name}' failed"
        )
        session.add(
            Notification(
                tenant_id=dataset.tenant_id,
                user_id=creator_id,
                type=event,
                title=title[:200],
                message=error or f"{dataset.record_count} records.",
                data={"dataset_id": dataset.id, "project_id": dataset.project_id},
            )
        )


__all__ = ["record_outcome"]
