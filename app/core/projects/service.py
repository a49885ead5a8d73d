"""Projects and their members."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.authz import Action, require, require_project, require_tenant_target
from app.core.clock import iso
from app.core.error_codes import ErrorCode
from app.core.errors import Invalid, NotFound
from app.core.models import utcnow
from app.core.principal import Principal
from app.core.projects.models import Project, ProjectMember
from app.core.projects.payloads import MemberAdd, MemberRemove, ProjectCreate, ProjectUpdate
from app.core.projects.repository import ProjectListing, ProjectRepository, VisibleProject
from app.core.services import audit, events
from app.core.tenants.repository import TenantRepository
from app.core.users.repository import UserRepository


def _dedupe(tags: list[str]) -> list[str]:
    return list(dict.fromkeys(tags))


async def create(session: AsyncSession, principal: Principal, data: ProjectCreate) -> Project:
    require(principal, Action.PROJECT_CREATE)
    tenant_id = principal.tenant_id
    if data.tenant_id is not None and require_tenant_target(principal, data.tenant_id, "create projects"):
        tenant_id = (await TenantRepository(session, principal).get(data.tenant_id)).id or data.tenant_id
    project = Project(
        tenant_id=tenant_id,
        name=data.name,
        description=data.description,
        tags=_dedupe(data.tags),
        created_by=principal.user_id,
    )
    session.add(project)
    await session.flush()
    audit.record(
        session,
        principal,
        "project.create",
        target_type="project",
        target_id=project.id,
        project_id=project.id,
        tenant_id=tenant_id,
        details={"name": project.name},
    )
    events.record(
        session,
        "project.created",
        tenant_id=tenant_id,
        data={
            "project_id": project.id,
            "name": project.name,
            "description": project.description,
            "tags": project.tags,
            "created_at": iso(project.created_at),
            "created_by": principal.user_id,
        },
    )
    return project


async def get(session: AsyncSession, principal: Principal, project_id: int) -> VisibleProject:
    return await ProjectRepository(session, principal).get(project_id)


async def list_visible(
    session: AsyncSession,
    principal: Principal,
    *,
    tenant_id: int | None,
    tag: str | None,
    q: str | None,
    limit: int,
    offset: int,
) -> tuple[list[ProjectListing], int]:
    return await ProjectRepository(session, principal).list(
        tenant_id=tenant_id, tag=tag, q=q, limit=limit, offset=offset
    )


async def update(
    session: AsyncSession, principal: Principal, project_id: int, data: ProjectUpdate
) -> Project:
    visible = await ProjectRepository(session, principal).get(project_id)
    require_project(principal, visible.role, Action.PROJECT_UPDATE)
    fields = data.model_dump(exclude_unset=True, exclude_none=True)
    if not fields:
        raise Invalid("Nothing to update: send at least one of name, description, tags.", code=ErrorCode.NOTHING_TO_UPDATE)
    project = visible.project
    if "tags" in fields:
        fields["tags"] = _dedupe(fields["tags"])
    for key, value in fields.items():
        setattr(project, key, value)
    project.updated_at = utcnow()
    audit.record(
        session,
        principal,
        "project.update",
        target_type="project",
        target_id=project.id,
        project_id=project.id,
        tenant_id=project.tenant_id,
        details={"fields": sorted(fields)},
    )
    return project


async def deletable(session: AsyncSession, principal: Principal, project_id: int) -> Project:
    """The project if the caller may delete it (404 if they cannot see it, else 403 unless allowed)."""
    visible = await ProjectRepository(session, principal).get(project_id)
    require_project(principal, visible.role, Action.PROJECT_DELETE)
    return visible.project


async def delete(session: AsyncSession, principal: Principal, project: Project) -> Project:
    """`project` (as `deletable` returned it: checked once), its schema links and memberships. Its
    datasets are removed first by the one caller, datasets.service.delete_project: datasets sit
    above projects."""
    repo = ProjectRepository(session, principal)
    assert project.id is not None
    project_id = project.id
    await repo.delete_schema_links(project_id)
    await repo.delete_memberships(project_id)
    await session.delete(project)
    audit.record(
        session,
        principal,
        "project.delete",
        target_type="project",
        target_id=project_id,
        project_id=project_id,
        tenant_id=project.tenant_id,
        details={"name": project.name},
    )
    return project


async def add_member(
    session: AsyncSession, principal: Principal, project_id: int, data: MemberAdd
) -> ProjectMember:
    repo = ProjectRepository(session, principal)
    visible = await repo.get(project_id)
    require_project(principal, visible.role, Action.PROJECT_MANAGE_MEMBERS)
    try:
        user = await UserRepository(session, principal).get(data.user_id)
    except NotFound:
        raise NotFound(f"User {data.user_id} does not exist in this tenant.", code=ErrorCode.USER_NOT_FOUND, field="user_id") from None
    if user.tenant_id != visible.project.tenant_id:
        raise NotFound(f"User {data.user_id} does not exist in this project's tenant.", code=ErrorCode.USER_NOT_FOUND, field="user_id")
    if not user.is_active and user.password_hash is not None:
        raise Invalid(f"User {data.user_id} is deactivated.", code=ErrorCode.USER_INACTIVE, field="user_id")
    member = await repo.membership(project_id, data.user_id)
    if member is not None:
        if member.role == data.role.value:
            return member
        member.role = data.role.value
        action = "project.member_update"
    else:
        member = ProjectMember(
            project_id=project_id, user_id=data.user_id, role=data.role.value, added_by=principal.user_id
        )
        session.add(member)
        action = "project.member_add"
    audit.record(
        session,
        principal,
        action,
        target_type="user",
        target_id=data.user_id,
        project_id=project_id,
        tenant_id=visible.project.tenant_id,
        details={"role": data.role.value},
    )
    await session.flush()
    return member


async def remove_member(
    session: AsyncSession, principal: Principal, project_id: int, data: MemberRemove
) -> Project:
    repo = ProjectRepository(session, principal)
    visible = await repo.get(project_id)
    require_project(principal, visible.role, Action.PROJECT_MANAGE_MEMBERS)
    member = await repo.membership(project_id, data.user_id)
    if member is None:
        raise NotFound(f"User {data.user_id} is not a member of project {project_id}.", code=ErrorCode.MEMBER_NOT_FOUND, field="user_id")
    await session.delete(member)
    audit.record(
        session,
        principal,
        "project.member_remove",
        target_type="user",
        target_id=data.user_id,
        project_id=project_id,
        tenant_id=visible.project.tenant_id,
    )
    return visible.project
