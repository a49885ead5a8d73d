"""Live dataset updates: what changed since a stream last looked. Workers in other processes
write the dataset rows, so the database is the only place to see a change; a stream polls it
through the repository and is sent each dataset once per change of (status, progress,
records_generated)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.authz import require_read
from app.core.datasets.models import Dataset, DatasetFile, DatasetStatus
from app.core.datasets.repository import DatasetRepository
from app.core.datasets.service import DatasetRights, rights_on
from app.core.principal import Principal
from app.core.projects.repository import ProjectRepository

FINAL = frozenset(
    {
        DatasetStatus.completed.value,
        DatasetStatus.failed.value,
        DatasetStatus.cancelled.value,
        DatasetStatus.expired.value,
    }
)
StateKey = tuple[str, float, int]


@dataclass
class DatasetWatch:
    """One stream's memory between polls: what it last sent of each dataset it still follows."""

    dataset_id: int | None = None
    project_id: int | None = None
    sent: dict[int, StateKey] = field(default_factory=dict)
    after_id: int | None = None  # datasets newer than this are new to the stream
    finished: bool = False  # the one followed dataset reached a final status


@dataclass(frozen=True, slots=True)
class DatasetChange:
    dataset: Dataset
    files: list[DatasetFile]
    rights: DatasetRights  # what the caller may do to it (`Dataset.viewer_can`)


async def poll(session: AsyncSession, principal: Principal, watch: DatasetWatch) -> list[DatasetChange]:
    """The datasets of `watch` that changed since the last poll (on the first: the one dataset
    asked for, or every queued and running one). NotFound when the dataset or project asked for
    is not visible to the caller, now."""
    require_read(principal)  # a stream reads; a scoped API token needs `read`
    repo = DatasetRepository(session, principal)
    if watch.dataset_id is not None:
        rows = [await repo.get(watch.dataset_id)]
    else:
        if watch.project_id is not None:
            await ProjectRepository(session, principal).get(watch.project_id)
        if watch.after_id is None:
            watch.after_id = await repo.newest_id(project_id=watch.project_id)
        rows = await repo.followed(project_id=watch.project_id, ids=list(watch.sent), after_id=watch.after_id)
    changed: list[Dataset] = []
    following: dict[int, StateKey] = {}
    for row in rows:
        assert row.id is not None
        key = (row.status, row.progress, row.records_generated)
        if watch.sent.get(row.id) != key:
            changed.append(row)
        if row.status not in FINAL:
            following[row.id] = key
        watch.after_id = max(watch.after_id or 0, row.id)
    # a dataset that reached a final status (or vanished from view) is no longer followed
    watch.sent = following
    if watch.dataset_id is not None and rows[0].status in FINAL:
        watch.finished = True
    if not changed:
        return []
    files = await repo.files_of([row.id for row in changed if row.id is not None])
    roles = await ProjectRepository(session, principal).roles(list({row.project_id for row in changed}))
    return [
        DatasetChange(
            row, files.get(row.id, []), rights_on(principal, roles.get(row.project_id), row.created_by)
        )
        for row in changed
        if row.id is not None
    ]
