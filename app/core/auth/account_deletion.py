"""Deleting one's own account: the user row is deactivated and anonymised, and every credential
of it goes (API tokens, two-factor state, issued access tokens). It is auth's use case because
it withdraws auth's rows as well as the user's, and auth sits above users."""

from __future__ import annotations

import secrets

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.auth.repository import ApiTokenRepository, TwoFactorRepository
from app.core.authz import Action, require, require_another_admin
from app.core.error_codes import ErrorCode
from app.core.errors import Forbidden
from app.core.models import Role, utcnow
from app.core.principal import Principal
from app.core.security.passwords import verify_password_async
from app.core.services import audit
from app.core.users.models import User
from app.core.users.payloads import AccountDelete
from app.core.users.repository import UserRepository


async def delete_account(session: AsyncSession, principal: Principal, data: AccountDelete) -> User:
    """Deactivate and anonymise; audit rows keep the name they were written with."""
    require(principal, Action.ACCOUNT_UPDATE)
    users = UserRepository(session, principal)
    user = await users.get(principal.user_id)
    if not await verify_password_async(data.password, user.password_hash):
        raise Forbidden("The password is incorrect.", code=ErrorCode.WRONG_PASSWORD, field="password")
    await require_another_admin(
        Role(user.role),
        user.is_active,
        lambda: users.active_admin_count(user.tenant_id),
        "delete their account; make another user Admin first",
    )
    for token in await ApiTokenRepository(session, principal).own_tokens():
        token.revoked_at = utcnow()
    assert user.id is not None
    await TwoFactorRepository(session, user.id).clear()
    audit.record(
        session,
        principal,
        "settings.delete_account",
        target_type="user",
        target_id=user.id,
        details={"username": user.username},
    )
    now = utcnow()
    user.username = f"deleted-{user.id}-{secrets.token_hex(4)}"
    user.email = user.display_name = user.password_hash = user.avatar_path = None
    user.totp_secret_enc = user.totp_pending_enc = None
    user.two_factor_enabled = False
    user.notification_prefs = {}
    user.is_active = False
    user.tokens_valid_after = now
    user.deleted_at = now
    user.updated_at = now
    return user
