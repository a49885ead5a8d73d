"""The one authorization table. Knows roles and project roles, nothing of HTTP or GraphQL.

Global actions need a minimum tenant role; project actions need a minimum *effective*
project role, which folds the tenant role in (Admins own every project of their tenant,
a Manager owns the projects they created). Visibility is "has any effective project role";
an invisible project is reported as NotFound by the access layer, never as Forbidden.
Services ask through the `require_*` helpers, which also hold the rules that are not one row
of the table (granting roles, changes to oneself, the last active Admin, crossing tenants).
A scoped API token (principal.TokenScope) narrows all of this further, never widens it: it sees
only its projects, and takes only the actions its TokenActions cover (TOKEN_ACTIONS).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from enum import StrEnum

from app.core.error_codes import ErrorCode
from app.core.errors import Conflict, Forbidden
from app.core.models import ProjectRole, Role, TokenAction
from app.core.principal import Principal, TokenScope


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
    # one dataset: its creator (with the project role below), or OTHERS_DATASETS (see there)
    DATASET_START = "dataset.start"
    DATASET_CANCEL = "dataset.cancel"
    DATASET_DELETE = "dataset.delete"
    DATASET_DOWNLOAD = "dataset.download"
    # one's own account: settings, password, email, two-factor, API tokens, notifications read
    ACCOUNT_UPDATE = "account.update"
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
    Action.DATASET_START: Role.Tester,
    Action.DATASET_CANCEL: Role.Tester,
    Action.DATASET_DELETE: Role.Tester,
    Action.DATASET_DOWNLOAD: Role.Tester,
    Action.ACCOUNT_UPDATE: Role.Tester,
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
    Action.DATASET_START: ProjectRole.edit,
    Action.DATASET_CANCEL: ProjectRole.edit,
    Action.DATASET_DELETE: ProjectRole.edit,
    Action.DATASET_DOWNLOAD: ProjectRole.view,
    Action.PROJECT_DELETE: ProjectRole.owner,
    Action.DATASET_EXPORT: ProjectRole.edit,
}

# What each TokenAction of a scoped API token covers. An action not listed here (managing projects,
# members, users, tenants, integrations, reading the audit log or other users, one's own account
# and its tokens) is never a scoped token's: it needs an unscoped token or a log-in. Every query
# (and subscription) reads, and needs `read` (`require_read`).
TOKEN_ACTIONS: dict[Action, TokenAction] = {
    Action.PROJECT_READ: TokenAction.read,
    Action.SCHEMA_UPLOAD: TokenAction.upload,
    Action.SCHEMA_DELETE_ANY: TokenAction.upload,
    Action.CONSTRAINT_CREATE: TokenAction.upload,
    Action.CONSTRAINT_CHANGE_ANY: TokenAction.upload,
    Action.PROJECT_LINK_SCHEMA: TokenAction.upload,
    Action.DATASET_CREATE: TokenAction.generate,
    Action.DATASET_START: TokenAction.generate,
    Action.DATASET_CANCEL: TokenAction.generate,
    Action.DATASET_DELETE: TokenAction.generate,
    Action.DATASET_DOWNLOAD: TokenAction.download,
    Action.DATASET_EXPORT: TokenAction.download,
}

# The dataset actions on a dataset someone else created: the table's two rows above apply to the
# creator's own datasets; another's takes either this tenant role or this project role (the
# project's owners: its members with role owner, Admins, the Manager who created the project).
OTHERS_DATASETS: dict[Action, tuple[Role, ProjectRole]] = {
    Action.DATASET_START: (Role.Manager, ProjectRole.owner),
    Action.DATASET_CANCEL: (Role.Manager, ProjectRole.owner),
    Action.DATASET_DELETE: (Role.Manager, ProjectRole.owner),
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
    Action.DATASET_START: (
        "start one's own datasets in this project (another's dataset: the project's owners, Managers and up)"
    ),
    Action.DATASET_CANCEL: (
        "cancel one's own datasets in this project (another's dataset: the project's owners, Managers and up)"
    ),
    Action.DATASET_DELETE: (
        "delete one's own datasets in this project (another's dataset: the project's owners, Managers and up)"
    ),
    Action.DATASET_DOWNLOAD: "download this project's datasets",
    Action.ACCOUNT_UPDATE: "change the account (settings, password, email, two-factor, API tokens, notifications)",
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
    """Raise Forbidden unless the caller's tenant role allows `action` (and their token's scope)."""
    if not principal.at_least(MIN_ROLE[action]):
        raise Forbidden(f"Your role ({principal.role.value}) may not {describe(action)}.", code=ErrorCode.ROLE_FORBIDDEN)
    require_scope(principal, action)


def scope_allows(principal: Principal, action: Action) -> bool:
    """Whether the caller's token scope covers `action` (always, for an unscoped caller)."""
    return principal.scope is None or TOKEN_ACTIONS.get(action) in principal.scope.actions


def require_scope(principal: Principal, action: Action) -> None:
    """Raise Forbidden when the caller is a scoped API token whose actions do not cover `action`."""
    if principal.scope is not None and not scope_allows(principal, action):
        raise Forbidden(_scope_refusal(principal.scope, describe(action)), code=ErrorCode.TOKEN_SCOPE_FORBIDDEN)


def require_read(principal: Principal) -> None:
    """Every query reads: a scoped API token needs `read` for it."""
    scope = principal.scope
    if scope is not None and TokenAction.read not in scope.actions:
        raise Forbidden(_scope_refusal(scope, "read anything"), code=ErrorCode.TOKEN_SCOPE_FORBIDDEN)


def _scope_refusal(scope: TokenScope, what: str) -> str:
    allowed = ", ".join(a.value for a in TokenAction if a in scope.actions)
    return f"This API token's scope allows {allowed}; it may not {what}."


def effective_project_role(
    principal: Principal,
    *,
    project_id: int | None,
    project_tenant_id: int,
    created_by: int | None,
    membership: ProjectRole | None,
) -> ProjectRole | None:
    """The caller's role on a project (None: they may not see it). A scoped API token sees only
    its projects, whatever its owner may see."""
    if principal.scope is not None and not principal.scope.allows_project(project_id):
        return None
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
            f"Your project role ({project_role.value}) may not {describe(action)}; it needs '{needed.value}'.",
            code=ErrorCode.PROJECT_ROLE_FORBIDDEN,
        )


def may_act_on_dataset(
    principal: Principal, project_role: ProjectRole, created_by: int | None, action: Action
) -> bool:
    """Whether the caller may take a dataset action (OTHERS_DATASETS) on a dataset of a project
    where their effective role is `project_role`: as its creator by the table's rows, else as one
    of the project's owners or by tenant role; a scoped API token also needs the action in scope."""
    if not principal.at_least(MIN_ROLE[action]) or not scope_allows(principal, action):
        return False
    others_role, others_project_role = OTHERS_DATASETS[action]
    if principal.at_least(others_role) or project_role.rank >= others_project_role.rank:
        return True
    return created_by == principal.user_id and project_role.rank >= MIN_PROJECT_ROLE[action].rank


def require_dataset(
    principal: Principal, project_role: ProjectRole, created_by: int | None, action: Action
) -> None:
    """Raise Forbidden unless `may_act_on_dataset`; the sentence says which rule refused."""
    require_scope(principal, action)
    if may_act_on_dataset(principal, project_role, created_by, action):
        return
    if created_by == principal.user_id or not principal.at_least(MIN_ROLE[action]):
        require_project(principal, project_role, action)  # raises: the creator's own rule refused
    others_role = OTHERS_DATASETS[action][0]
    verb = action.value.partition(".")[2]
    raise Forbidden(
        f"Only its creator, the project's owners and {others_role.value}s and up may {verb} this "
        f"dataset; your role is {principal.role.value} with project role '{project_role.value}'.",
        code=ErrorCode.PROJECT_ROLE_FORBIDDEN,
    )


def require_owner_or(principal: Principal, owner_id: int | None, action: Action) -> None:
    """The creator of a library item may manage it; others need the action's role. Either way a
    scoped API token needs the action in its scope."""
    if owner_id is not None and owner_id == principal.user_id:
        scope = principal.scope
        if scope is not None and not scope_allows(principal, action):
            # its own item: the token's scope is all that refuses ("of others" would mislead)
            raise Forbidden(_scope_refusal(scope, "change the schema library"), code=ErrorCode.TOKEN_SCOPE_FORBIDDEN)
        return
    require(principal, action)


def can_grant(principal: Principal, role: Role) -> bool:
    """Nobody grants a role above their own; only a SuperUser grants SuperUser."""
    if role is Role.SuperUser:
        return principal.is_superuser
    return principal.role.rank >= role.rank


def require_grant(principal: Principal, role: Role) -> None:
    if not can_grant(principal, role):
        raise Forbidden(f"Your role ({principal.role.value}) may not grant the role {role.value}.", code=ErrorCode.ROLE_FORBIDDEN, field="role")


def require_tenant_target(principal: Principal, tenant_id: int | None, what: str) -> bool:
    """Whether a creation names another tenant than the caller's (True), which only a SuperUser
    may do; for others the field is simply not applicable (Forbidden)."""
    if tenant_id is None or tenant_id == principal.tenant_id:
        return False
    if not principal.is_superuser:
        raise Forbidden(f"Only a SuperUser may {what} in another tenant.", code=ErrorCode.OTHER_TENANT_FORBIDDEN)
    return True


def require_tenant_read(principal: Principal, tenant_id: int) -> None:
    """Everyone reads their own tenant; other tenants are a SuperUser's."""
    if tenant_id != principal.tenant_id:
        require(principal, Action.TENANT_READ_ANY)


def require_not_own_tenant_deactivation(principal: Principal, tenant_id: int, is_active: bool | None) -> None:
    if is_active is False and tenant_id == principal.tenant_id:
        raise Conflict("You may not deactivate your own tenant.", code=ErrorCode.OWN_TENANT, field="is_active")


def require_user_read(principal: Principal, user_id: int) -> None:
    """Everyone reads themselves; other users need USER_READ_OTHER. Callers resolve the user
    first, so a user outside the tenant is NotFound before it is Forbidden."""
    if user_id != principal.user_id:
        require(principal, Action.USER_READ_OTHER)


def require_user_update(
    principal: Principal, *, user_id: int, current: Role, new_role: Role | None, deactivate: bool
) -> None:
    """Nobody changes their own role or deactivates themselves; changing users is USER_UPDATE,
    never of a user above one's own role, and a new role must be one the caller may grant."""
    if user_id == principal.user_id and new_role is not None and new_role is not current:
        raise Forbidden("You may not change your own role.", code=ErrorCode.OWN_ROLE, field="role")
    if user_id == principal.user_id and deactivate:
        raise Forbidden("You may not deactivate yourself.", code=ErrorCode.OWN_ACCOUNT, field="is_active")
    require(principal, Action.USER_UPDATE)
    if current.rank > principal.role.rank:
        raise Forbidden(f"Your role ({principal.role.value}) may not change a {current.value}.", code=ErrorCode.ROLE_FORBIDDEN)
    if new_role is not None and new_role is not current:
        require_grant(principal, new_role)


async def require_another_admin(
    role: Role, is_active: bool, active_admins: Callable[[], Awaitable[int]], outcome: str
) -> None:
    """A tenant keeps an active Admin: its last one cannot be demoted, deactivated or deleted.
    `active_admins` counts them, only asked when the user is an active Admin."""
    if role is Role.Admin and is_active and await active_admins() <= 1:
        raise Conflict(f"The last active Admin of a tenant cannot {outcome}.", code=ErrorCode.LAST_ADMIN)


def permission_table() -> list[dict[str, str]]:
    """The table as data, for docs and the README (and the `permissions` query). A dataset action's
    row also names what a dataset created by someone else takes (`others_min_role` or
    `others_min_project_role`: either suffices); `token_action` is what a scoped API token needs."""
    rows = []
    for action, role in MIN_ROLE.items():
        row = {"action": action.value, "min_role": role.value}
        if action in MIN_PROJECT_ROLE:
            row["min_project_role"] = MIN_PROJECT_ROLE[action].value
        if action in TOKEN_ACTIONS:
            row["token_action"] = TOKEN_ACTIONS[action].value  # what a scoped API token needs for it
        if action in OTHERS_DATASETS:
            # min_role and min_project_role are the creator's; another's dataset takes either of these
            others_role, others_project_role = OTHERS_DATASETS[action]
            row["others_min_role"] = others_role.value
            row["others_min_project_role"] = others_project_role.value
        rows.append(row)
    return rows
