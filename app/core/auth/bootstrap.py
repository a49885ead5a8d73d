"""First start: tenant `default` and a SuperUser from the settings, the operator's way in. It runs
before any principal exists, so it reads through AuthRepository like login."""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.auth.repository import AuthRepository
from app.core.models import Role
from app.core.security.passwords import hash_password_async
from app.core.settings import Settings
from app.core.tenants.models import Tenant
from app.core.users.models import User

log = logging.getLogger("tdg.bootstrap")


@dataclass
class GeneratedAdmin:
    """The SuperUser this process created with a generated password, for the banner `tdg serve`
    prints once it listens (app/first_start.py): the log line alone was lost in start-up output."""

    username: str = ""
    password: str = ""


generated_admin = GeneratedAdmin()


async def ensure_bootstrap(session: AsyncSession, settings: Settings) -> bool:
    """Create the default tenant and SuperUser when the database has no tenant. True if it did."""
    repo = AuthRepository(session)
    if await repo.tenant_count() > 0:
        return False
    password = settings.admin_password
    generated = password is None
    if password is None:
        password = secrets.token_urlsafe(12)
    tenant = Tenant(name="default")
    session.add(tenant)
    await session.flush()
    assert tenant.id is not None
    session.add(
        User(
            tenant_id=tenant.id,
            username=settings.admin_username,
            role=Role.SuperUser.value,
            password_hash=await hash_password_async(password),
            display_name="Administrator",
        )
    )
    await session.commit()
    if generated:
        # printed once, on the first start only: the operator's way in
        generated_admin.username, generated_admin.password = settings.admin_username, password
        log.warning("Created SuperUser '%s' with generated password: %s", settings.admin_username, password)
    else:
        log.info("Created SuperUser '%s' from TDG_ADMIN_PASSWORD", settings.admin_username)
    return True
