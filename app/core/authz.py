"""The one authorization table. Knows roles and project roles, nothing of HTTP or GraphQL.

Global actions need a minimum tenant role; project actions need a minimum *effective*
project role, which folds the tenant role in (Admins own every project of their tenant,
a Manager owns the projects they created). Visibility is "has any effective project role";
an invisible project is reported as NotFound by the access layer, never as Forbidden.
"""

from __future__ import annotations

from enum import StrEnum

from app.core.errors import Forbidden
from app.core.models import ProjectRole, Role
from app.core.principal import Principal


class Action(StrEnum):
    # tenant-level
    PROJECT_CREATE = "project.create"
    PROJECT_DELETE = "project.delete"
    USER_CREATE = "user.create"
    USER_INVITE = "user.invite"
    USER_LIST = "user.list"
    USER_READ_OTHER = "user.read"
    USER_UPDATE = "user.update"
    AUDIT_READ = "audit.read"
    TENANT_CREATE = "tenant.create"
    TENANT_READ_ANY = "tenant.read"
    TENANT_UPDATE = "tenant.update"
    # project-level
    PROJECT_READ = "project.read"
    PROJECT_UPDATE = "project.update"
    PROJECT_MANAGE_MEMBERS = "project.members"
    PROJECT_LINK_SCHEMA = "project.link_schema"
    DATASET_CREATE = "dataset.create"
    # tenant library (schemas, constraint sets): creators manage their own, Managers all
    SCHEMA_UPLOAD = "schema.upload"
    SCHEMA_DELETE_ANY = "schema.delete"
    CONSTRAINT_CREATE = "constraint.create"
    CONSTRAINT_CHANGE_ANY = "constraint.change"
    # integrations of the tenant: Managers read them, Admins manage them
    INTEGRATION_READ = "integration.read"
    INTEGRATION_MANAGE = "integration.manage"
    DATASET_EXPORT = "dataset.export"


MIN_ROLE: dict[Action, Role] = {
    Action.PROJECT_CREATE: Role.Manager,
    Action.PROJECT_DELETE: Role.Admin,
    Action.USER_CREATE: Role.Admin,
    Action.USER_INVITE: Role.Manager,
    Action.USER_LIST: Role.Manager,
    Action.USER_READ_OTHER: Role.Manager,
    Action.USER_UPDATE: Role.Admin,
    Action.AUDIT_READ: Role.Admin,
    Action.TENANT_CREATE: Role.SuperUser,
    Action.TENANT_READ_ANY: Role.SuperUser,
    Action.TENANT_UPDATE: Role.SuperUser,
    Action.PROJECT_READ: Role.Tester,
    Action.PROJECT_UPDATE: Role.Tester,
    Action.PROJECT_MANAGE_MEMBERS: Role.Manager,
    Action.PROJECT_LINK_SCHEMA: Role.Tester,
    Action.DATASET_CREATE: Role.Tester,
    Action.SCHEMA_UPLOAD: Role.Tester,
    Action.SCHEMA_DELETE_ANY: Role.Manager,
    Action.CONSTRAINT_CREATE: Role.Tester,
    Action.CONSTRAINT_CHANGE_ANY: Role.Manager,
    Action.INTEGRATION_READ: Role.Manager,
    Action.INTEGRATION_MANAGE: Role.Admin,
    Action.DATASET_EXPORT: Role.Tester,
}

MIN_PROJECT_ROLE: dict[Action, ProjectRole] = {
    Action.PROJECT_READ: ProjectRole.view,
    Action.PROJECT_UPDATE: ProjectRole.owner,
    Action.PROJECT_MANAGE_MEMBERS: ProjectRole.owner,
    Action.PROJECT_LINK_SCHEMA: ProjectRole.edit,
    Action.DATASET_CREATE: ProjectRole.edit,
    Action.PROJECT_DELETE: ProjectRole.owner,
    Action.DATASET_EXPORT: ProjectRole.edit,
}

_ACTION_WORDS: dict[Action, str] = {
    Action.PROJECT_CREATE: "create projects",
    Action.PROJECT_DELETE: "delete projects",
    Action.USER_CREATE: "create users",
    Action.USER_INVITE: "invite users",
    Action.USER_LIST: "list users",
    Action.USER_READ_OTHER: "view other users",
    Action.USER_UPDATE: "change users",
    Action.AUDIT_READ: "read audit logs",
    Action.TENANT_CREATE: "create tenants",
    Action.TENANT_READ_ANY: "view other tenants",
    Action.TENANT_UPDATE: "change tenant settings",
    Action.PROJECT_READ: "view this project",
    Action.PROJECT_UPDATE: "update this project",
    Action.PROJECT_MANAGE_MEMBERS: "manage this project's members",
    Action.PROJECT_LINK_SCHEMA: "link schemas to this project",
    Action.DATASET_CREATE: "create datasets in this project",
    Action.SCHEMA_UPLOAD: "upload schemas",
    Action.SCHEMA_DELETE_ANY: "delete schemas uploaded by others",
    Action.CONSTRAINT_CREATE: "create constraint sets",
    Action.CONSTRAINT_CHANGE_ANY: "change constraint sets created by others",
    Action.INTEGRATION_READ: "view integrations",
    Action.INTEGRATION_MANAGE: "manage integrations",
    Action.DATASET_EXPORT: "export datasets of this project",
}


def describe(action: Action) -> str:
    return _ACTION_WORDS.get(action, action.value)


def require(principal: Principal, action: Action) -> None:
    """Raise Forbidden unless the caller's tenant role allows `action`."""
    if not principal.at_least(MIN_ROLE[action]):
        raise Forbidden(f"Your role ({principal.role.value}) may not {describe(action)}.")


def effective_project_role(
    principal: Principal, *, project_tenant_id: int, created_by: int | None, membership: ProjectRole | None
) -> ProjectRole | None:
    if principal.is_superuser:
        return ProjectRole.owner
    if project_tenant_id != principal.tenant_id:
        return None
    if principal.role is Role.Admin:
        return ProjectRole.owner
    if principal.role is Role.Manager and created_by == principal.user_id:
        return ProjectRole.owner
    return membership


def require_project(principal: Principal, project_role: ProjectRole, action: Action) -> None:
    """Raise Forbidden unless both the tenant role and the effective project role allow `action`."""
    require(principal, action)
    needed = MIN_PROJECT_ROLE[action]
    if project_role.rank < needed.rank:
        raise Forbidden(
            f"Your project role ({project_role.value}) may not {describe(action)}; it needs '{needed.value}'."
        )


def require_owner_or(principal: Principal, owner_id: int | None, action: Action) -> None:
    """The creator of a library item may manage it; others need the action's role."""
    if owner_id is not None and owner_id == principal.user_id:
        return
    require(principal, action)


def can_grant(principal: Principal, role: Role) -> bool:
    """Nobody grants a role above their own; only a SuperUser grants SuperUser."""
    if role is Role.SuperUser:
        return principal.is_superuser
    return principal.role.rank >= role.rank


def permission_table() -> list[dict[str, str]]:
    """The table as data, for docs and the README."""
    rows = []
    for action, role in MIN_ROLE.items():
        row = {"action": action.value, "min_role": role.value}
        if action in MIN_PROJECT_ROLE:
            row["min_project_role"] = MIN_PROJECT_ROLE[action].value
        rows.append(row)
    return rows
