"""Administration from the shell (`tdg user create`): runs the same rules as the API."""

from __future__ import annotations

from app.core.database import make_async_engine, make_sessionmaker
from app.core.errors import DomainError
from app.core.migrate import upgrade
from app.core.models import Role, User
from app.core.payloads import UserCreate
from app.core.repositories import AuthRepository
from app.core.security.passwords import check_password_policy, configure_hashing, hash_password_async
from app.core.services import audit
from app.core.services.bootstrap import ensure_bootstrap
from app.core.settings import Settings
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
