"""Per-request dataloaders: nested fields cost one query per level, not one per row."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession
from strawberry.dataloader import DataLoader

from app.core.datasets.models import Dataset, DatasetFile
from app.core.datasets.repository import DatasetRepository
from app.core.library import schema_problems
from app.core.library.models import SchemaDoc
from app.core.library.repository import SchemaRepository
from app.core.models import ProjectRole
from app.core.principal import Principal
from app.core.projects.models import Project, ProjectMember
from app.core.projects.repository import ProjectRepository
from app.core.settings import Settings
from app.core.tenants.repository import TenantRepository
from app.core.users.models import User
from app.core.users.repository import UserRepository


class Loaders:
    def __init__(self, session: AsyncSession, principal: Principal, settings: Settings) -> None:
        self._session, self._principal, self._settings = session, principal, settings
        self._projects = ProjectRepository(session, principal)
        self._users = UserRepository(session, principal)
        self.members_by_project = DataLoader(self._load_members)
        self.user_by_id = DataLoader(self._load_users)
        self.projects_by_user = DataLoader(self._load_projects_by_user)
        self.project_role = DataLoader(self._load_project_roles)
        self._schemas = SchemaRepository(session, principal)
        self.schemas_by_project = DataLoader(self._load_schemas_by_project)
        self.project_ids_by_schema = DataLoader(self._load_project_ids_by_schema)
        # a Schema's `problems`, `satisfiable` and `problem` read one list: found once per request
        self.problems_by_schema = DataLoader(self._load_problems)
        self._datasets = DatasetRepository(session, principal)
        self.datasets_by_project = DataLoader(self._load_datasets_by_project)
        self.files_by_dataset = DataLoader(self._load_files_by_dataset)
        self._tenants = TenantRepository(session, principal)
        self.tenant_name = DataLoader(self._load_tenant_names)

    async def _load_members(self, project_ids: Sequence[int]) -> list[list[ProjectMember]]:
        grouped: dict[int, list[ProjectMember]] = defaultdict(list)
        for member in await self._projects.members_of(project_ids):
            grouped[member.project_id].append(member)
        return [grouped.get(pid, []) for pid in project_ids]

    async def _load_users(self, user_ids: Sequence[int]) -> list[User | None]:
        by_id = {u.id: u for u in await self._users.by_ids(user_ids)}
        return [by_id.get(uid) for uid in user_ids]

    async def _load_projects_by_user(self, user_ids: Sequence[int]) -> list[list[Project]]:
        found = await self._projects.visible_for_user(user_ids)
        return [found.get(uid, []) for uid in user_ids]

    async def _load_project_roles(self, project_ids: Sequence[int]) -> list[ProjectRole | None]:
        found = await self._projects.roles(project_ids)
        return [found.get(pid) for pid in project_ids]

    async def _load_schemas_by_project(self, project_ids: Sequence[int]) -> list[list[SchemaDoc]]:
        found = await self._schemas.of_projects(project_ids)
        return [found.get(pid, []) for pid in project_ids]

    async def _load_project_ids_by_schema(self, schema_ids: Sequence[int]) -> list[list[int]]:
        found = await self._schemas.project_ids(schema_ids)
        return [found.get(sid, []) for sid in schema_ids]

    async def _load_problems(self, schema_ids: Sequence[int]) -> list[list[dict[str, Any]]]:
        return [
            await schema_problems.of_schema(self._session, self._principal, self._settings, sid)
            for sid in schema_ids
        ]

    async def _load_datasets_by_project(self, project_ids: Sequence[int]) -> list[list[Dataset]]:
        found = await self._datasets.of_projects(project_ids)
        return [found.get(pid, []) for pid in project_ids]

    async def _load_files_by_dataset(self, dataset_ids: Sequence[int]) -> list[list[DatasetFile]]:
        found = await self._datasets.files_of(dataset_ids)
        return [found.get(did, []) for did in dataset_ids]

    async def _load_tenant_names(self, tenant_ids: Sequence[int]) -> list[str]:
        # a project the caller sees is in a tenant they see (their own, or any for a SuperUser)
        found = await self._tenants.names(tenant_ids)
        return [found.get(tid, "") for tid in tenant_ids]
