"""Two-factor authentication (TOTP, RFC 6238 via pyotp): enrolment with confirmation, ten
single-use recovery codes, disabling, and the second-factor check used by login.

A code is accepted within one step either side of now (`valid_window=1`), and never twice: the
accepted time step is stored and any step at or before the last accepted one is refused."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

import pyotp
from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.auth.payloads import TwoFactorDisable, TwoFactorEnable
from app.core.auth.repository import TwoFactorRepository
from app.core.authz import Action, require
from app.core.error_codes import ErrorCode
from app.core.errors import Conflict, Forbidden, Invalid
from app.core.models import utcnow
from app.core.principal import Principal
from app.core.security.passwords import verify_password_async
from app.core.security.sealed import seal, unseal
from app.core.services import audit
from app.core.settings import Settings
from app.core.users.models import User
from app.core.users.repository import UserRepository

ISSUER = "Test Data Generation Service"
RECOVERY_CODE_COUNT = 10
VALID_WINDOW = 1


@dataclass(frozen=True, slots=True)
class TwoFactorState:
    enabled: bool
    detail: str
    secret: str | None = None
    otpauth_uri: str | None = None
    recovery_codes: list[str] = field(default_factory=list)


def _new_recovery_code() -> str:
    raw = secrets.token_hex(5)  # 40 bits each; only their SHA-256 is stored
    return f"{raw[:5]}-{raw[5:]}"


def _recovery_hash(code: str) -> str:
    normalised = code.strip().lower().replace("-", "").replace(" ", "")
    return hashlib.sha256(normalised.encode()).hexdigest()


def _matching_step(secret: str, code: str) -> int | None:
    """The time step whose code equals `code` within the window, compared in constant time."""
    totp = pyotp.TOTP(secret)
    code = code.strip().replace(" ", "")
    if len(code) != totp.digits or not code.isascii() or not code.isdigit():
        return None
    current = totp.timecode(utcnow())
    for step in range(current - VALID_WINDOW, current + VALID_WINDOW + 1):
        if hmac.compare_digest(totp.generate_otp(step), code):
            return step
    return None


async def _accept_totp(session: AsyncSession, user: User, secret: str, code: str) -> bool:
    step = _matching_step(secret, code)
    if step is None:
        return False
    assert user.id is not None
    repo = TwoFactorRepository(session, user.id)
    await repo.lock_user()
    last = await repo.last_step()
    if last is not None and step <= last:
        return False  # replay, or an older code after a newer one was used
    repo.add_step(step)
    await repo.forget_steps_before(step - 10)
    return True


async def check_second_factor(session: AsyncSession, settings: Settings, user: User, code: str) -> bool:
    """True when `code` is a fresh TOTP code or an unused recovery code of `user` (consumed now)."""
    if not user.two_factor_enabled or user.totp_secret_enc is None:
        return False
    secret = unseal(settings.signing_key(), user.totp_secret_enc)
    if await _accept_totp(session, user, secret, code):
        return True
    assert user.id is not None
    return await TwoFactorRepository(session, user.id).use_recovery_code(_recovery_hash(code))


async def enable(
    session: AsyncSession, principal: Principal, settings: Settings, data: TwoFactorEnable
) -> TwoFactorState:
    """Without a code: start (or restart) enrolment. With a code: confirm it and turn 2FA on."""
    require(principal, Action.ACCOUNT_UPDATE)
    user = await UserRepository(session, principal).get(principal.user_id)
    if user.two_factor_enabled:
        raise Conflict("Two-factor authentication is already enabled; disable it first to enrol again.", code=ErrorCode.TWO_FACTOR_ENABLED)
    if data.code is None:
        secret = pyotp.random_base32()
        user.totp_pending_enc = seal(settings.signing_key(), secret)
        user.updated_at = utcnow()
        audit.record(session, principal, "settings.2fa_enrol", target_type="user", target_id=user.id)
        uri = pyotp.TOTP(secret).provisioning_uri(name=user.username, issuer_name=ISSUER)
        return TwoFactorState(
            False,
            "Add the secret to an authenticator app, then send one of its codes as "
            '{"code": "..."} to confirm.',
            secret=secret,
            otpauth_uri=uri,
        )
    if user.totp_pending_enc is None:
        raise Conflict("No enrolment is in progress; call enable_2fa without a code first.", code=ErrorCode.NO_ENROLMENT)
    secret = unseal(settings.signing_key(), user.totp_pending_enc)
    if not await _accept_totp(session, user, secret, data.code):
        raise Invalid("The one-time code is not valid; check the authenticator app's clock and try again.", code=ErrorCode.INVALID_ONE_TIME_CODE, field="code")
    codes = [_new_recovery_code() for _ in range(RECOVERY_CODE_COUNT)]
    assert user.id is not None
    await TwoFactorRepository(session, user.id).replace_recovery_codes([_recovery_hash(c) for c in codes])
    user.totp_secret_enc, user.totp_pending_enc = user.totp_pending_enc, None
    user.two_factor_enabled = True
    user.updated_at = utcnow()
    audit.record(session, principal, "settings.2fa_enable", target_type="user", target_id=user.id)
    return TwoFactorState(
        True,
        "Two-factor authentication is on. Store the recovery codes now: they are not "
        "shown again and each works once.",
        recovery_codes=codes,
    )


async def disable(
    session: AsyncSession, principal: Principal, settings: Settings, data: TwoFactorDisable
) -> TwoFactorState:
    require(principal, Action.ACCOUNT_UPDATE)
    user = await UserRepository(session, principal).get(principal.user_id)
    if not user.two_factor_enabled:
        raise Conflict("Two-factor authentication is not enabled.", code=ErrorCode.TWO_FACTOR_NOT_ENABLED)
    if not await verify_password_async(data.password, user.password_hash):
        raise Forbidden("The password is incorrect.", code=ErrorCode.WRONG_PASSWORD, field="password")
    if not await check_second_factor(session, settings, user, data.code):
        raise Forbidden("The one-time code is not valid or has already been used.", code=ErrorCode.INVALID_ONE_TIME_CODE, field="code")
    assert user.id is not None
    await TwoFactorRepository(session, user.id).clear()
    user.two_factor_enabled = False
    user.totp_secret_enc = user.totp_pending_enc = None
    user.updated_at = utcnow()
    audit.record(session, principal, "settings.2fa_disable", target_type="user", target_id=user.id)
    return TwoFactorState(False, "Two-factor authentication is off.")
