"""Users: creation, invitations, search, role and activation changes (DESIGN §4 rules)."""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import timedelta

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core import authz
from app.core.authz import Action, require
from app.core.error_codes import ErrorCode
from app.core.errors import Conflict, Invalid
from app.core.models import Role, stored_id, utcnow
from app.core.principal import Principal
from app.core.security import opaque_tokens
from app.core.security.passwords import check_password_policy, hash_password_async
from app.core.services import audit
from app.core.settings import Settings
from app.core.users.models import Invitation, User
from app.core.users.payloads import UserCreate, UserInvite, UserUpdate
from app.core.users.repository import UserRepository


@dataclass(frozen=True, slots=True)
class CreatedUser:
    user: User
    invitation_token: str | None
    invitation_url: str | None


async def _target_tenant(session: AsyncSession, principal: Principal, tenant_id: int | None) -> int:
    if tenant_id is None or not authz.require_tenant_target(principal, tenant_id, "create users"):
        return principal.tenant_id
    return (await UserRepository(session, principal).tenant(tenant_id)).id or tenant_id


async def _new_user(
    session: AsyncSession,
    principal: Principal,
    settings: Settings,
    *,
    tenant_id: int,
    username: str,
    email: str | None,
    role: Role,
    display_name: str | None,
    password: str | None,
    action: str,
) -> CreatedUser:
    users = UserRepository(session, principal)
    if await users.username_taken(username):
        raise Conflict(f"The username '{username}' is already taken.", code=ErrorCode.USERNAME_TAKEN, field="username")
    if email and await users.email_taken(tenant_id, email):
        raise Conflict(f"The email address '{email}' is already used in this tenant.", code=ErrorCode.EMAIL_TAKEN, field="email")
    if password is not None:
        check_password_policy(password)
    user = User(
        tenant_id=tenant_id,
        username=username,
        email=email,
        role=role.value,
        display_name=display_name,
        is_active=password is not None,
        password_hash=await hash_password_async(password) if password is not None else None,
        created_by=principal.user_id,
    )
    session.add(user)
    await session.flush()
    token = url = None
    if password is None:
        token = _invitation(session, principal, settings, user)
        url = f"{settings.site_url}/setup-password?token={token}"
    audit.record(
        session,
        principal,
        action,
        target_type="user",
        target_id=user.id,
        tenant_id=tenant_id,
        details={"username": username, "role": role.value, "invited": password is None},
    )
    return CreatedUser(user, token, url)


def _invitation(session: AsyncSession, principal: Principal, settings: Settings, user: User) -> str:
    """A new invitation of `user` (it sets the password, auth.service.setup_password); its secret."""
    secret = opaque_tokens.new_invitation_token()
    session.add(
        Invitation(
            user_id=stored_id(user),
            tenant_id=user.tenant_id,
            token_hash=opaque_tokens.digest(secret),
            created_by=principal.user_id,
            expires_at=utcnow() + timedelta(hours=settings.invitation_ttl_hours),
        )
    )
    return secret


async def create(
    session: AsyncSession, principal: Principal, settings: Settings, data: UserCreate
) -> CreatedUser:
    require(principal, Action.USER_CREATE)
    authz.require_grant(principal, data.role)
    tenant_id = await _target_tenant(session, principal, data.tenant_id)
    return await _new_user(
        session,
        principal,
        settings,
        tenant_id=tenant_id,
        username=data.username,
        email=data.email,
        role=data.role,
        display_name=data.display_name,
        password=data.password,
        action="user.create",
    )


async def invite(
    session: AsyncSession, principal: Principal, settings: Settings, data: UserInvite
) -> CreatedUser:
    require(principal, Action.USER_INVITE)
    authz.require_grant(principal, data.role)
    return await _new_user(
        session,
        principal,
        settings,
        tenant_id=principal.tenant_id,
        username=data.username,
        email=data.email,
        role=data.role,
        display_name=data.display_name,
        password=None,
        action="user.invite",
    )


async def get(session: AsyncSession, principal: Principal, user_id: int) -> User:
    # 404 first for users outside the tenant, then 403 for a visible one
    user = await UserRepository(session, principal).get(user_id)
    authz.require_user_read(principal, user_id)
    return user


async def search(
    session: AsyncSession,
    principal: Principal,
    *,
    q: str | None,
    role: Role | None,
    is_active: bool | None,
    tenant_id: int | None,
    limit: int,
    offset: int,
) -> tuple[list[User], int]:
    require(principal, Action.USER_LIST)
    return await UserRepository(session, principal).search(
        q=q, role=role, is_active=is_active, tenant_id=tenant_id, limit=limit, offset=offset
    )


async def update(session: AsyncSession, principal: Principal, user_id: int, data: UserUpdate) -> User:
    users = UserRepository(session, principal)
    user = await users.get(user_id)
    fields = data.model_dump(exclude_unset=True, exclude_none=True)
    if not fields:
        raise Invalid("Nothing to update: send at least one of role, is_active, display_name, email.", code=ErrorCode.NOTHING_TO_UPDATE)
    current = Role(user.role)
    authz.require_user_update(
        principal, user_id=user_id, current=current, new_role=data.role, deactivate=data.is_active is False
    )

    def active_admins() -> Awaitable[int]:
        return users.active_admin_count(user.tenant_id)

    changes: dict[str, object] = {}
    if data.role is not None and data.role is not current:
        await authz.require_another_admin(current, user.is_active, active_admins, "be demoted")
        changes["role"] = [current.value, data.role.value]
        user.role = data.role.value
    if data.is_active is not None and data.is_active != user.is_active:
        if not data.is_active:
            await authz.require_another_admin(current, user.is_active, active_admins, "be deactivated")
        if data.is_active and user.password_hash is None:
            raise Conflict(
                "This user has not set a password yet; they activate by accepting their invitation.",
                code=ErrorCode.USER_NOT_ACTIVATED, field="is_active",
            )
        changes["is_active"] = [user.is_active, data.is_active]
        user.is_active = data.is_active
    if data.is_active is False and user.password_hash is None:
        # deactivating someone who has not accepted yet withdraws their invitation
        changes["invitations_revoked"] = await users.revoke_invitations(
            stored_id(user), utcnow()
        )
    if "display_name" in fields:
        user.display_name = data.display_name
        changes["display_name"] = True
    if data.email is not None and data.email != user.email:
        if await users.email_taken(user.tenant_id, data.email, except_user=user.id):
            raise Conflict(f"The email address '{data.email}' is already used in this tenant.", code=ErrorCode.EMAIL_TAKEN, field="email")
        user.email = data.email
        changes["email"] = True
    user.updated_at = utcnow()
    audit.record(
        session,
        principal,
        "user.update",
        target_type="user",
        target_id=user.id,
        tenant_id=user.tenant_id,
        details=changes,
    )
    return user
