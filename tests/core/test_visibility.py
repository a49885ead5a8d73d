"""The SQL visibility clause (repositories/visibility.py) and the Python rule
(authz.effective_project_role) agree for every kind of caller, on both databases: the project
list, a project lookup and the datasets filter can never disagree about what a caller sees."""

from __future__ import annotations

import itertools

from app.core.database import make_async_engine, make_sessionmaker
from app.core.datasets.models import Dataset
from app.core.datasets.repository import DatasetRepository
from app.core.errors import NotFound
from app.core.library.models import SchemaDoc
from app.core.models import ProjectRole, Role
from app.core.principal import Principal
from app.core.projects.models import Project, ProjectMember
from app.core.projects.repository import ProjectRepository
from app.core.tenants.models import Tenant
from app.core.users.models import User

_names = itertools.count()


def _user(tenant: Tenant, role: Role) -> User:
    return User(tenant_id=tenant.id, username=f"vis-{next(_names)}", role=role.value)


async def test_clause_and_rule_agree(database_url: str) -> None:
    engine = make_async_engine(database_url)
    try:
        async with make_sessionmaker(engine)() as session:
            home, away = Tenant(name="vis-home"), Tenant(name="vis-away")
            session.add_all([home, away])
            await session.flush()
            callers = [_user(home, role) for role in (Role.Tester, Role.Tester, Role.Manager, Role.Manager, Role.Admin)]
            callers += [_user(away, Role.Admin), _user(away, Role.SuperUser)]
            session.add_all(callers)
            await session.flush()
            tester, outsider, manager, other_manager, *_ = callers
            schema = SchemaDoc(tenant_id=home.id, name="s", type="json_schema", version="2020-12", size_bytes=1,
                               sha256="0" * 64, storage_key="k", default_root="#")
            session.add(schema)
            projects = [Project(tenant_id=home.id, name="by manager", created_by=manager.id),
                        Project(tenant_id=home.id, name="by other manager", created_by=other_manager.id),
                        Project(tenant_id=home.id, name="no creator"),
                        Project(tenant_id=away.id, name="away", created_by=callers[5].id)]
            session.add_all(projects)
            await session.flush()
            session.add_all([
                ProjectMember(project_id=projects[1].id, user_id=tester.id, role=ProjectRole.view.value),
                ProjectMember(project_id=projects[2].id, user_id=manager.id, role=ProjectRole.edit.value),
                # a membership row in another tenant's project grants nothing
                ProjectMember(project_id=projects[3].id, user_id=outsider.id, role=ProjectRole.owner.value),
            ])
            for project in projects:
                session.add(Dataset(tenant_id=project.tenant_id, project_id=project.id, schema_id=schema.id,
                                    name=project.name, record_count=1, types=["json"]))
            await session.flush()

            p0, p1, p2, p3 = (p.id for p in projects)
            expected = [{p1}, set(), {p0, p2}, {p1}, {p0, p1, p2}, {p3}, {p0, p1, p2, p3}]
            for user, visible in zip(callers, expected, strict=True):
                who = Principal(user_id=user.id, tenant_id=user.tenant_id, username=user.username,  # type: ignore[arg-type]
                                role=Role(user.role), via="jwt")
                repo = ProjectRepository(session, who)
                listed, total = await repo.list(tenant_id=None, tag=None, q=None, limit=100, offset=0)
                by_rule = set()
                for project in projects:
                    try:
                        await repo.get(project.id)  # type: ignore[arg-type]
                        by_rule.add(project.id)
                    except NotFound:
                        pass
                assert by_rule == visible, user.role
                assert {p.id for p in listed} == by_rule and total == len(by_rule), user.role
                datasets, _ = await DatasetRepository(session, who).list(project_id=None, status=None, limit=100,
                                                                         offset=0)
                assert {d.project_id for d in datasets} == by_rule, user.role
            await session.rollback()
    finally:
        await engine.dispose()
