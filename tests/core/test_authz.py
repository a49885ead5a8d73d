"""Unit tests of the one authorization table (app/core/authz.py)."""

from __future__ import annotations

import pytest

from app.core import authz
from app.core.authz import (
    Action,
    can_grant,
    effective_project_role,
    permission_table,
    require,
    require_project,
)
from app.core.errors import Conflict, Forbidden
from app.core.models import ProjectRole, Role
from app.core.principal import Principal

TENANT, OTHER_TENANT = 10, 20


def who(role: Role, *, user_id: int = 1, tenant_id: int = TENANT) -> Principal:
    return Principal(user_id=user_id, tenant_id=tenant_id, username=f"u{user_id}", role=role, via="jwt")


def test_role_order() -> None:
    assert [r.rank for r in (Role.Tester, Role.Manager, Role.Admin, Role.SuperUser)] == [1, 2, 3, 4]
    assert [r.rank for r in (ProjectRole.view, ProjectRole.edit, ProjectRole.owner)] == [1, 2, 3]


@pytest.mark.parametrize(("granter", "allowed"), [
    (Role.Tester, {Role.Tester}),
    (Role.Manager, {Role.Tester, Role.Manager}),
    (Role.Admin, {Role.Tester, Role.Manager, Role.Admin}),
    (Role.SuperUser, set(Role)),
])
def test_can_grant_up_to_own_role_and_superuser_only_by_superuser(granter: Role, allowed: set[Role]) -> None:
    assert {r for r in Role if can_grant(who(granter), r)} == allowed


def test_effective_project_role() -> None:
    def eff(p: Principal, *, tenant: int = TENANT, created_by: int | None = 99,
            membership: ProjectRole | None = None) -> ProjectRole | None:
        return effective_project_role(p, project_id=1, project_tenant_id=tenant, created_by=created_by,
                                      membership=membership)

    # a SuperUser owns everything, in every tenant
    assert eff(who(Role.SuperUser, tenant_id=OTHER_TENANT)) is ProjectRole.owner
    # nobody else sees another tenant's project, whatever the membership row says
    for role in (Role.Tester, Role.Manager, Role.Admin):
        assert eff(who(role), tenant=OTHER_TENANT, membership=ProjectRole.owner, created_by=1) is None
    # Admins own every project of their tenant
    assert eff(who(Role.Admin)) is ProjectRole.owner
    assert eff(who(Role.Admin), membership=ProjectRole.view) is ProjectRole.owner
    # a Manager owns what they created, else has their membership (or nothing)
    assert eff(who(Role.Manager, user_id=5), created_by=5) is ProjectRole.owner
    assert eff(who(Role.Manager, user_id=5), created_by=6) is None
    assert eff(who(Role.Manager, user_id=5), created_by=None, membership=ProjectRole.edit) is ProjectRole.edit
    # a Tester has exactly their membership, even for a project they created before a demotion
    assert eff(who(Role.Tester, user_id=5), created_by=5) is None
    for membership in ProjectRole:
        assert eff(who(Role.Tester), membership=membership) is membership


def test_require_uses_minimum_roles() -> None:
    for action, minimum in authz.MIN_ROLE.items():
        for role in Role:
            if role.rank >= minimum.rank:
                require(who(role), action)
            else:
                with pytest.raises(Forbidden) as err:
                    require(who(role), action)
                assert role.value in err.value.detail and err.value.status == 403


def test_require_project_needs_both_roles() -> None:
    require_project(who(Role.Tester), ProjectRole.edit, Action.DATASET_CREATE)
    with pytest.raises(Forbidden, match="needs 'edit'"):
        require_project(who(Role.Tester), ProjectRole.view, Action.DATASET_CREATE)
    # an owner Tester updates a project but may neither manage members nor delete it
    require_project(who(Role.Tester), ProjectRole.owner, Action.PROJECT_UPDATE)
    for action in (Action.PROJECT_MANAGE_MEMBERS, Action.PROJECT_DELETE):
        with pytest.raises(Forbidden, match=r"\(Tester\)"):
            require_project(who(Role.Tester), ProjectRole.owner, action)
    require_project(who(Role.Manager), ProjectRole.owner, Action.PROJECT_MANAGE_MEMBERS)
    with pytest.raises(Forbidden):
        require_project(who(Role.Manager), ProjectRole.edit, Action.PROJECT_MANAGE_MEMBERS)
    with pytest.raises(Forbidden):
        require_project(who(Role.Manager), ProjectRole.owner, Action.PROJECT_DELETE)
    require_project(who(Role.Admin), ProjectRole.owner, Action.PROJECT_DELETE)


def test_permission_table_is_complete() -> None:
    rows = permission_table()
    assert [r["action"] for r in rows] == [a.value for a in authz.MIN_ROLE]
    # every action has a minimum role, and every project action is also a tenant action
    assert set(authz.MIN_ROLE) == set(Action)
    assert set(authz.MIN_PROJECT_ROLE) <= set(authz.MIN_ROLE)
    by_action = {r["action"]: r for r in rows}
    for action, project_role in authz.MIN_PROJECT_ROLE.items():
        assert by_action[action.value]["min_project_role"] == project_role.value
    for row in rows:
        assert row["min_role"] in {r.value for r in Role}
        assert set(row) <= {"action", "min_role", "min_project_role", "others_min_role", "others_min_project_role",
                            "token_action"}
    # the rules of DESIGN §4 as data
    assert by_action["project.delete"]["min_role"] == "Admin"
    assert by_action["audit.read"]["min_role"] == "Admin"
    assert by_action["user.invite"]["min_role"] == "Manager"
    assert by_action["tenant.create"]["min_role"] == "SuperUser"
    assert by_action["project.members"] == {"action": "project.members", "min_role": "Manager",
                                            "min_project_role": "owner"}


def test_dataset_actions_are_the_creators_the_owners_and_managers() -> None:
    """Start, cancel and delete of one dataset: its creator with edit, the project's owners, and
    Managers and up; the table says so (creator's row plus others_min_*)."""
    by_action = {r["action"]: r for r in permission_table()}
    creator, other = 5, 6
    for action in (Action.DATASET_START, Action.DATASET_CANCEL, Action.DATASET_DELETE):
        assert by_action[action.value] == {"action": action.value, "min_role": "Tester", "min_project_role": "edit",
                                           "others_min_role": "Manager", "others_min_project_role": "owner",
                                           "token_action": "generate"}

        def may(role: Role, project_role: ProjectRole, created_by: int | None,
                action: Action = action) -> bool:
            allowed = authz.may_act_on_dataset(who(role, user_id=creator), project_role, created_by, action)
            try:
                authz.require_dataset(who(role, user_id=creator), project_role, created_by, action)
            except Forbidden as refused:
                assert not allowed and refused.status == 403
                return False
            assert allowed
            return True

        assert may(Role.Tester, ProjectRole.edit, creator)
        assert not may(Role.Tester, ProjectRole.view, creator)  # no longer may change the project's data
        assert not may(Role.Tester, ProjectRole.edit, other)  # the reproduction: edit on another's dataset
        assert not may(Role.Tester, ProjectRole.edit, None)  # its creator's account is gone
        assert may(Role.Tester, ProjectRole.owner, other)
        for role in (Role.Manager, Role.Admin, Role.SuperUser):
            assert may(role, ProjectRole.view, other)
    with pytest.raises(Forbidden, match=r"needs 'edit'"):
        authz.require_dataset(who(Role.Tester, user_id=creator), ProjectRole.view, creator, Action.DATASET_DELETE)
    with pytest.raises(Forbidden, match=r"Only its creator, the project's owners and Managers and up may delete "
                                        r"this dataset; your role is Tester with project role 'edit'"):
        authz.require_dataset(who(Role.Tester, user_id=creator), ProjectRole.edit, other, Action.DATASET_DELETE)


def test_every_refusal_reads_as_a_sentence() -> None:
    for action in Action:
        words = authz.describe(action)
        assert words and "." not in words, (action, words)


def test_require_grant_and_tenant_target() -> None:
    authz.require_grant(who(Role.Manager), Role.Manager)
    with pytest.raises(Forbidden, match=r"may not grant the role Admin"):
        authz.require_grant(who(Role.Manager), Role.Admin)
    # naming one's own tenant (or none) is not crossing; another tenant is a SuperUser's
    assert not authz.require_tenant_target(who(Role.Admin), None, "create users")
    assert not authz.require_tenant_target(who(Role.Admin), TENANT, "create users")
    assert authz.require_tenant_target(who(Role.SuperUser), OTHER_TENANT, "create users")
    with pytest.raises(Forbidden, match="Only a SuperUser may create projects in another tenant"):
        authz.require_tenant_target(who(Role.Admin), OTHER_TENANT, "create projects")


def test_reading_tenants_and_users() -> None:
    authz.require_tenant_read(who(Role.Tester), TENANT)
    authz.require_tenant_read(who(Role.SuperUser), OTHER_TENANT)
    with pytest.raises(Forbidden):
        authz.require_tenant_read(who(Role.Admin), OTHER_TENANT)
    authz.require_user_read(who(Role.Tester, user_id=5), 5)
    authz.require_user_read(who(Role.Manager, user_id=5), 6)
    with pytest.raises(Forbidden, match=r"\(Tester\) may not view other users"):
        authz.require_user_read(who(Role.Tester, user_id=5), 6)


def test_require_user_update() -> None:
    def update(p: Principal, *, user_id: int = 2, current: Role = Role.Tester, new_role: Role | None = None,
               deactivate: bool = False) -> None:
        authz.require_user_update(p, user_id=user_id, current=current, new_role=new_role, deactivate=deactivate)

    admin = who(Role.Admin, user_id=1)
    update(admin, new_role=Role.Admin)
    update(admin, user_id=1, current=Role.Admin, new_role=Role.Admin)  # not a change
    with pytest.raises(Forbidden, match="your own role"):
        update(admin, user_id=1, current=Role.Admin, new_role=Role.Tester)
    with pytest.raises(Forbidden, match="deactivate yourself"):
        update(admin, user_id=1, current=Role.Admin, deactivate=True)
    with pytest.raises(Forbidden, match=r"\(Manager\) may not change users"):
        update(who(Role.Manager))
    with pytest.raises(Forbidden, match="may not change a SuperUser"):
        update(admin, current=Role.SuperUser)
    with pytest.raises(Forbidden, match="may not grant the role SuperUser"):
        update(admin, new_role=Role.SuperUser)


async def test_a_tenant_keeps_an_active_admin() -> None:
    asked: list[int] = []

    async def admins(n: int) -> int:
        asked.append(n)
        return n

    await authz.require_another_admin(Role.Admin, True, lambda: admins(2), "be demoted")
    with pytest.raises(Conflict, match=r"The last active Admin of a tenant cannot be demoted\."):
        await authz.require_another_admin(Role.Admin, True, lambda: admins(1), "be demoted")
    # only an active Admin is counted at all
    await authz.require_another_admin(Role.Manager, True, lambda: admins(0), "be demoted")
    await authz.require_another_admin(Role.Admin, False, lambda: admins(0), "be demoted")
    assert asked == [2, 1]
    with pytest.raises(Conflict, match="You may not deactivate your own tenant"):
        authz.require_not_own_tenant_deactivation(who(Role.SuperUser), TENANT, False)
    authz.require_not_own_tenant_deactivation(who(Role.SuperUser), OTHER_TENANT, False)
    authz.require_not_own_tenant_deactivation(who(Role.SuperUser), TENANT, None)


def test_a_scoped_token_is_held_to_its_actions() -> None:
    """TOKEN_ACTIONS: each covered action needs its TokenAction in the scope; the others (managing
    anything, one's account) are never a scoped token's; reading needs `read`."""
    from app.core.models import TokenAction
    from app.core.principal import TokenScope

    def token(*actions: TokenAction, role: Role = Role.Admin) -> Principal:
        return Principal(user_id=1, tenant_id=TENANT, username="u1", role=role, via="api_token",
                         scope=TokenScope(None, frozenset(actions)))

    for action in Action:
        covered = authz.TOKEN_ACTIONS.get(action)
        for granted in TokenAction:
            allowed = covered is granted
            assert authz.scope_allows(token(granted), action) is allowed, (action, granted)
        if covered is None:
            with pytest.raises(Forbidden, match=r"^This API token's scope allows read, upload, generate, "
                                                r"download; it may not "):
                require(token(*TokenAction, role=Role.SuperUser), action)  # the role allows it
    authz.require_read(token(TokenAction.read))
    with pytest.raises(Forbidden, match=r"scope allows download; it may not read anything"):
        authz.require_read(token(TokenAction.download))
    # one's own library item: only the scope can refuse, and says so plainly
    authz.require_owner_or(token(TokenAction.upload, role=Role.Tester), 1, Action.CONSTRAINT_CHANGE_ANY)
    with pytest.raises(Forbidden, match=r"scope allows read; it may not change the schema library"):
        authz.require_owner_or(token(TokenAction.read), 1, Action.CONSTRAINT_CHANGE_ANY)
    # a dataset: the scope and the ownership rule both apply
    assert not authz.may_act_on_dataset(token(TokenAction.read), ProjectRole.owner, 1, Action.DATASET_DELETE)
    assert authz.may_act_on_dataset(token(TokenAction.generate), ProjectRole.owner, 1, Action.DATASET_DELETE)
    # projects outside the scope are invisible, whatever the role
    limited = Principal(user_id=1, tenant_id=TENANT, username="u1", role=Role.SuperUser, via="api_token",
                        scope=TokenScope(frozenset({7}), frozenset(TokenAction)))
    assert effective_project_role(limited, project_id=7, project_tenant_id=TENANT, created_by=None,
                                  membership=None) is ProjectRole.owner
    assert effective_project_role(limited, project_id=8, project_tenant_id=TENANT, created_by=None,
                                  membership=None) is None
