"""Tenants: listing, SuperUser creation (with the first Admin) and settings."""

from __future__ import annotations

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.authz import Action, require, require_not_own_tenant_deactivation, require_tenant_read
from app.core.error_codes import ErrorCode
from app.core.errors import Conflict, Invalid
from app.core.models import Role, utcnow
from app.core.principal import Principal
from app.core.security.passwords import check_password_policy, hash_password_async
from app.core.services import audit
from app.core.tenants.models import Tenant
from app.core.tenants.payloads import TenantCreate, TenantUpdate
from app.core.tenants.repository import TenantRepository
from app.core.users.models import User
from app.core.users.repository import UserRepository


async def list_visible(
    session: AsyncSession, principal: Principal, limit: int, offset: int
) -> tuple[list[Tenant], int]:
    return await TenantRepository(session, principal).list(limit, offset)


async def current(session: AsyncSession, principal: Principal) -> Tenant:
    return await TenantRepository(session, principal).get(principal.tenant_id)


async def get(session: AsyncSession, principal: Principal, tenant_id: int) -> Tenant:
    require_tenant_read(principal, tenant_id)
    return await TenantRepository(session, principal).get(tenant_id)


async def create(session: AsyncSession, principal: Principal, data: TenantCreate) -> tuple[Tenant, User]:
    require(principal, Action.TENANT_CREATE)
    tenants = TenantRepository(session, principal)
    if await tenants.name_taken(data.name):
        raise Conflict(f"A tenant named '{data.name}' already exists.", code=ErrorCode.TENANT_NAME_TAKEN, field="name")
    if await UserRepository(session, principal).username_taken(data.admin_username):
        raise Conflict(f"The username '{data.admin_username}' is already taken.", code=ErrorCode.USERNAME_TAKEN, field="admin_username")
    check_password_policy(data.admin_password, "admin_password")
    tenant = Tenant(name=data.name)
    session.add(tenant)
    await session.flush()
    assert tenant.id is not None
    admin = User(
        tenant_id=tenant.id,
        username=data.admin_username,
        email=data.admin_email,
        role=Role.Admin.value,
        password_hash=await hash_password_async(data.admin_password),
        created_by=principal.user_id,
    )
    session.add(admin)
    await session.flush()
    audit.record(
        session,
        principal,
        "tenant.create",
        target_type="tenant",
        target_id=tenant.id,
        tenant_id=tenant.id,
        details={"name": data.name, "admin_username": data.admin_username},
    )
    return tenant, admin


async def update(session: AsyncSession, principal: Principal, tenant_id: int, data: TenantUpdate) -> Tenant:
    require(principal, Action.TENANT_UPDATE)
    tenants = TenantRepository(session, principal)
    tenant = await tenants.get(tenant_id)
    fields = data.model_dump(exclude_unset=True, exclude_none=True)
    if not fields:
        raise Invalid("Nothing to update: send at least one tenant setting.", code=ErrorCode.NOTHING_TO_UPDATE)
    if "name" in fields and await tenants.name_taken(fields["name"], except_id=tenant.id):
        raise Conflict(f"A tenant named '{fields['name']}' already exists.", code=ErrorCode.TENANT_NAME_TAKEN, field="name")
    require_not_own_tenant_deactivation(principal, tenant_id, fields.get("is_active"))
    for key, value in fields.items():
        setattr(tenant, key, value)
    tenant.updated_at = utcnow()
    audit.record(
        session,
        principal,
        "tenant.update",
        target_type="tenant",
        target_id=tenant.id,
        tenant_id=tenant.id,
        details={k: v for k, v in fields.items()},
    )
    return tenant
