"""JWT access tokens. The only module that touches the JWT library, so it can be swapped."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from jose import JWTError, jwt

from app.core.error_codes import ErrorCode
from app.core.errors import Unauthenticated

ALGORITHM = "HS256"
_REQUIRED_CLAIMS = ("sub", "tid", "jti", "iat", "exp")


@dataclass(frozen=True, slots=True)
class AccessClaims:
    user_id: int
    tenant_id: int
    role: str
    jti: str
    issued_at: datetime
    expires_at: datetime


def issue(
    *,
    secret: str,
    user_id: int,
    tenant_id: int,
    role: str,
    ttl: timedelta,
    valid_after: datetime | None = None,
) -> tuple[str, AccessClaims]:
    """A signed token. `iat` has one-second resolution, so a token issued in the same second as a
    password change would look older than it: it is stamped with the next whole second instead."""
    now = datetime.now(UTC).replace(microsecond=0)
    if valid_after is not None and now < valid_after:
        now = valid_after.replace(microsecond=0) + timedelta(seconds=1 if valid_after.microsecond else 0)
    claims = AccessClaims(user_id, tenant_id, role, uuid.uuid4().hex, now, now + ttl)
    token = jwt.encode(
        {
            "sub": str(user_id),
            "tid": tenant_id,
            "role": role,
            "jti": claims.jti,
            "iat": int(now.timestamp()),
            "exp": int(claims.expires_at.timestamp()),
        },
        secret,
        algorithm=ALGORITHM,
    )
    return token, claims


def decode(token: str, *, secret: str) -> AccessClaims:
    try:
        payload = jwt.decode(
            token,
            secret,
            algorithms=[ALGORITHM],
            # python-jose accepts tokens without exp unless every claim is required explicitly
            options={"require_" + c: True for c in ("exp", "iat", "sub", "jti")} | {"verify_aud": False},
        )
    except JWTError as exc:
        if "expired" in str(exc).lower():
            raise Unauthenticated("The access token has expired.", code=ErrorCode.TOKEN_EXPIRED) from exc
        raise Unauthenticated("The access token is invalid.", code=ErrorCode.TOKEN_INVALID) from exc
    # a signed link (see issue_link) is never an access token
    if any(c not in payload for c in _REQUIRED_CLAIMS) or "purpose" in payload:
        raise Unauthenticated("The access token is invalid.", code=ErrorCode.TOKEN_INVALID)
    try:
        return AccessClaims(
            user_id=int(payload["sub"]),
            tenant_id=int(payload["tid"]),
            role=str(payload.get("role", "")),
            jti=str(payload["jti"]),
            issued_at=datetime.fromtimestamp(int(payload["iat"]), UTC),
            expires_at=datetime.fromtimestamp(int(payload["exp"]), UTC),
        )
    except (TypeError, ValueError) as exc:
        raise Unauthenticated("The access token is invalid.", code=ErrorCode.TOKEN_INVALID) from exc


def issue_link(*, secret: str, purpose: str, claims: dict[str, Any], ttl: timedelta) -> tuple[str, datetime]:
    """A signed token for one `purpose` other than access (e.g. a download link) and its expiry."""
    now = datetime.now(UTC).replace(microsecond=0)
    expires = now + ttl
    payload = {**claims, "purpose": purpose, "iat": int(now.timestamp()), "exp": int(expires.timestamp())}
    return jwt.encode(payload, secret, algorithm=ALGORITHM), expires


def decode_link(token: str, *, secret: str, purpose: str) -> dict[str, Any]:
    """The claims of a token from issue_link for `purpose`; Unauthenticated when it is expired,
    tampered with, or made for something else."""
    try:
        payload: dict[str, Any] = jwt.decode(
            token,
            secret,
            algorithms=[ALGORITHM],
            options={"require_exp": True, "require_iat": True, "verify_aud": False},
        )
    except JWTError as exc:
        if "expired" in str(exc).lower():
            raise Unauthenticated("The link has expired; ask for a new one.", code=ErrorCode.LINK_EXPIRED) from exc
        raise Unauthenticated("The link is invalid.", code=ErrorCode.LINK_INVALID) from exc
    if payload.get("purpose") != purpose:
        raise Unauthenticated("The link is invalid.", code=ErrorCode.LINK_INVALID)
    return payload
