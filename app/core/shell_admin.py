"""Administration from the shell (`tdg user create`, `tdg user reset-password`): runs the same
rules as the API, and records its changes in the audit log as the shell."""

from __future__ import annotations

from app.core.auth.bootstrap import ensure_bootstrap
from app.core.auth.repository import AuthRepository
from app.core.database import make_async_engine, make_sessionmaker
from app.core.errors import DomainError
from app.core.migrate import upgrade
from app.core.models import Role, utcnow
from app.core.security.passwords import check_password_policy, configure_hashing, hash_password_async
from app.core.services import audit
from app.core.settings import Settings
from app.core.users.models import User
from app.core.users.payloads import UserCreate
from app.core.validation import parse


async def create_user(
    settings: Settings, *, username: str, password: str, role: str, email: str | None, tenant_name: str
) -> int:
    upgrade(settings.database_url)
    configure_hashing(settings.password_hash_time_cost, settings.password_hash_memory_kib)
    engine = make_async_engine(settings.database_url)
    try:
        async with make_sessionmaker(engine)() as session:
            await ensure_bootstrap(session, settings)
            try:
                data = parse(
                    UserCreate, {"username": username, "password": password, "role": role, "email": email}
                )
                check_password_policy(password)
            except DomainError as exc:
                raise ValueError(exc.detail) from None
            repo = AuthRepository(session)
            tenant = await repo.tenant_by_name(tenant_name)
            if tenant is None or tenant.id is None:
                raise ValueError(f"No tenant named '{tenant_name}'.")
            if await repo.user_by_username(data.username):
                raise ValueError(f"The username '{data.username}' is already taken.")
            user = User(
                tenant_id=tenant.id,
                username=data.username,
                email=data.email,
                role=Role(data.role).value,
                password_hash=await hash_password_async(password),
            )
            session.add(user)
            await session.flush()
            audit.record(
                session,
                None,
                "user.create",
                target_type="user",
                target_id=user.id,
                tenant_id=tenant.id,
                actor_username="shell",
                details={"username": data.username, "role": data.role.value},
            )
            await session.commit()
            assert user.id is not None
            return user.id
    finally:
        await engine.dispose()


async def reset_password(settings: Settings, *, username: str, password: str) -> User:
    """A new password for `username` (any tenant: usernames are unique), under the password policy.
    As a change of password over the API: the user's earlier session tokens stop working. A login
    lockout of that username is lifted, since the operator has just chosen the way back in."""
    upgrade(settings.database_url)
    configure_hashing(settings.password_hash_time_cost, settings.password_hash_memory_kib)
    try:
        check_password_policy(password)
    except DomainError as exc:
        raise ValueError(exc.detail) from None
    engine = make_async_engine(settings.database_url)
    try:
        async with make_sessionmaker(engine)() as session:
            await ensure_bootstrap(session, settings)
            repo = AuthRepository(session)
            user = await repo.user_by_username(username)
            if user is None or user.id is None or user.deleted_at is not None:
                raise ValueError(f"No user named '{username}'.")
            user.password_hash = await hash_password_async(password)
            now = utcnow()
            user.tokens_valid_after = now
            user.updated_at = now
            throttle = await repo.throttle(f"user:{username.lower()}")
            if throttle is not None:
                await session.delete(throttle)
            audit.record(
                session,
                None,
                "user.reset_password",
                target_type="user",
                target_id=user.id,
                tenant_id=user.tenant_id,
                actor_username="shell",
                details={"username": user.username},
            )
            await session.commit()
            return user
    finally:
        await engine.dispose()
