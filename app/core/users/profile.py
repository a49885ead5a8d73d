"""The signed-in user's own settings: profile, avatar, password, email and notification
preferences (deleting the account is auth's: app/core/auth/account_deletion.py)."""

from __future__ import annotations

import asyncio
import base64
import binascii
import io
from dataclasses import dataclass
from datetime import timedelta

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core import preferences
from app.core.authz import Action, require
from app.core.error_codes import ErrorCode
from app.core.errors import Conflict, Forbidden, Invalid, PayloadTooLarge
from app.core.models import utcnow
from app.core.notifications.payloads import NotificationPrefsUpdate
from app.core.principal import Principal
from app.core.security import jwt_tokens
from app.core.security.passwords import check_password_policy, hash_password_async, verify_password_async
from app.core.services import audit
from app.core.settings import Settings
from app.core.storage import store_for
from app.core.users.models import User
from app.core.users.payloads import AvatarUpload, EmailChange, PasswordChange, SettingsUpdate
from app.core.users.repository import UserRepository

AVATAR_SIZE = (256, 256)
AVATAR_FORMATS = {"PNG", "JPEG", "WEBP"}
# decompression bombs: refuse before decoding anything larger than this many pixels
MAX_AVATAR_PIXELS = 40_000_000
AVATAR_PATH = "/avatars/{key}.png"


def avatar_url(user: User) -> str | None:
    return AVATAR_PATH.format(key=user.avatar_path) if user.avatar_path else None


def notification_preferences(user: User) -> dict[str, dict[str, bool]]:
    """Every event with both switches; stored values override the default (on)."""
    return preferences.all_switches(user.notification_prefs)


async def _me(session: AsyncSession, principal: Principal) -> User:
    return await UserRepository(session, principal).get(principal.user_id)


async def get(session: AsyncSession, principal: Principal) -> User:
    return await _me(session, principal)


async def update(session: AsyncSession, principal: Principal, data: SettingsUpdate) -> User:
    require(principal, Action.ACCOUNT_UPDATE)
    user = await _me(session, principal)
    fields = data.model_dump(exclude_none=True)  # null means "leave as is", as in GraphQL
    if not fields:
        raise Invalid("Nothing to update: send at least one of display_name, theme, locale.", code=ErrorCode.NOTHING_TO_UPDATE)
    for key, value in fields.items():
        setattr(user, key, (value or None) if key == "display_name" else value)
    user.updated_at = utcnow()
    audit.record(
        session,
        principal,
        "settings.update",
        target_type="user",
        target_id=user.id,
        details={"fields": sorted(fields)},
    )
    return user


def _reencode_avatar(raw: bytes) -> bytes:
    """Decode the upload for real and draw a fresh 256x256 PNG: nothing of the original file
    (metadata, trailing bytes, polyglot payloads) survives."""
    from PIL import Image, ImageOps, UnidentifiedImageError  # only here: the server need not hold it

    try:
        with Image.open(io.BytesIO(raw)) as img:
            if img.format not in AVATAR_FORMATS:
                raise Invalid("The avatar must be a PNG, JPEG or WebP image.", code=ErrorCode.INVALID_IMAGE, field="content_base64")
            if img.width * img.height > MAX_AVATAR_PIXELS:
                raise Invalid("The avatar image has too many pixels.", code=ErrorCode.IMAGE_TOO_LARGE, field="content_base64")
            img.load()
            upright = ImageOps.exif_transpose(img).convert("RGBA")
            fitted = ImageOps.fit(upright, AVATAR_SIZE, method=Image.Resampling.LANCZOS)
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError, SyntaxError):
        raise Invalid("The file is not a readable PNG, JPEG or WebP image.", code=ErrorCode.INVALID_IMAGE, field="content_base64") from None
    out = io.BytesIO()
    fitted.save(out, format="PNG", optimize=True)
    return out.getvalue()


async def upload_avatar(
    session: AsyncSession, principal: Principal, settings: Settings, data: AvatarUpload
) -> User:
    require(principal, Action.ACCOUNT_UPDATE)
    try:
        raw = base64.b64decode(data.content_base64, validate=True)
    except (binascii.Error, ValueError):
        raise Invalid("content_base64 is not valid base64.", code=ErrorCode.INVALID_BASE64, field="content_base64") from None
    if len(raw) > AvatarUpload.max_upload_bytes:
        raise PayloadTooLarge(
            f"The avatar is larger than the limit of {AvatarUpload.max_upload_bytes:,} bytes (2 MiB).",
            code=ErrorCode.FILE_TOO_LARGE, field="content_base64",
        )
    if not raw:
        raise Invalid("The avatar file is empty.", code=ErrorCode.EMPTY_FILE, field="content_base64")
    png = await asyncio.to_thread(_reencode_avatar, raw)
    key = await asyncio.to_thread(store_for(settings).put_blob, png)
    user = await _me(session, principal)
    user.avatar_path = key
    user.updated_at = utcnow()
    audit.record(
        session,
        principal,
        "settings.avatar",
        target_type="user",
        target_id=user.id,
        details={"size_bytes": len(png)},
    )
    return user


def avatar_file(settings: Settings, key: str) -> bytes | None:
    """The stored PNG of an avatar key (content-addressed, so the URL is its own cache key)."""
    if len(key) != 64 or not all(c in "0123456789abcdef" for c in key):
        return None
    try:
        return store_for(settings).get_blob(key)
    except FileNotFoundError:
        return None


@dataclass(frozen=True, slots=True)
class PasswordChanged:
    user: User
    access_token: str
    expires_in: int


async def change_password(
    session: AsyncSession, principal: Principal, settings: Settings, data: PasswordChange
) -> PasswordChanged:
    """Every session token issued before now stops working; the answer carries a fresh one."""
    require(principal, Action.ACCOUNT_UPDATE)
    user = await _me(session, principal)
    if not await verify_password_async(data.current_password, user.password_hash):
        raise Forbidden("The current password is incorrect.", code=ErrorCode.WRONG_PASSWORD, field="current_password")
    check_password_policy(data.new_password, "new_password")
    if data.new_password == data.current_password:
        raise Invalid("The new password must differ from the current one.", code=ErrorCode.PASSWORD_UNCHANGED, field="new_password")
    user.password_hash = await hash_password_async(data.new_password)
    now = utcnow()
    user.tokens_valid_after = now
    user.updated_at = now
    assert user.id is not None
    token, _ = jwt_tokens.issue(
        secret=settings.signing_key(),
        user_id=user.id,
        tenant_id=user.tenant_id,
        role=user.role,
        ttl=timedelta(hours=settings.token_ttl_hours),
        valid_after=now,
    )
    audit.record(session, principal, "settings.change_password", target_type="user", target_id=user.id)
    return PasswordChanged(user, token, settings.token_ttl_hours * 3600)


async def change_email(session: AsyncSession, principal: Principal, data: EmailChange) -> User:
    require(principal, Action.ACCOUNT_UPDATE)
    users = UserRepository(session, principal)
    user = await _me(session, principal)
    if not await verify_password_async(data.password, user.password_hash):
        raise Forbidden("The password is incorrect.", code=ErrorCode.WRONG_PASSWORD, field="password")
    if await users.email_taken(user.tenant_id, data.email, except_user=user.id):
        raise Conflict(f"The email address '{data.email}' is already used in this tenant.", code=ErrorCode.EMAIL_TAKEN, field="email")
    user.email = data.email
    user.updated_at = utcnow()
    audit.record(session, principal, "settings.change_email", target_type="user", target_id=user.id)
    return user


async def update_notifications(
    session: AsyncSession, principal: Principal, data: NotificationPrefsUpdate
) -> User:
    require(principal, Action.ACCOUNT_UPDATE)
    user = await _me(session, principal)
    prefs = notification_preferences(user)
    for event, channels in data.preferences.items():
        for channel, value in channels.model_dump(exclude_none=True).items():
            prefs[event][channel] = value
    user.notification_prefs = prefs  # a new dict, so the JSON column is seen as changed
    user.updated_at = utcnow()
    audit.record(session, principal, "settings.notifications", target_type="user", target_id=user.id)
    return user
