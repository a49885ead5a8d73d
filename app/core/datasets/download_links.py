"""Download links for browsers: an <a href> cannot send a bearer token, so a short-lived signed
link stands in for the Authorization header on the download door only. It is bound to the user,
the dataset, the format and the file; the door still authorizes as that user when it is used, and
a link made with an API token as that token: revoked or expired, the link stops too; scoped, the
door applies its scope again."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlencode

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.auth.repository import AuthRepository
from app.core.auth.service import scope_of
from app.core.clock import as_utc
from app.core.datasets.repository import DatasetRepository
from app.core.datasets.service import downloadable
from app.core.error_codes import ErrorCode
from app.core.errors import NotFound, Unauthenticated
from app.core.models import Role, utcnow
from app.core.principal import Principal, TokenScope
from app.core.security import jwt_tokens
from app.core.settings import Settings

LINK_TTL = timedelta(minutes=5)
PURPOSE = "download"
DOOR = "/api/v1/data"


@dataclass(frozen=True, slots=True)
class DownloadLink:
    url: str  # relative to the service's address
    expires_at: datetime


async def create(
    session: AsyncSession,
    principal: Principal,
    settings: Settings,
    dataset_id: int,
    fmt: str,
    file_index: int,
) -> DownloadLink:
    """A link to one file of a completed dataset, checked as GET /data/{dataset_id} would be now."""
    fmt = fmt.lower()
    repo = DatasetRepository(session, principal)
    await downloadable(repo, dataset_id, fmt, file_index)
    # a format never written is rendered by the door on first download; a written one has its files
    if (
        await repo.file(dataset_id, fmt, file_index) is None
        and await repo.file(dataset_id, fmt, 0) is not None
    ):
        raise NotFound(f"Dataset {dataset_id} has no {fmt} file {file_index}.", code=ErrorCode.FILE_NOT_FOUND)
    claims = {
        "sub": str(principal.user_id),
        "did": dataset_id,
        "fmt": fmt,
        "idx": file_index,
        "sid": principal.jti,
        "tok": principal.api_token_id,
    }
    token, expires = jwt_tokens.issue_link(
        secret=settings.signing_key(), purpose=PURPOSE, claims=claims, ttl=LINK_TTL
    )
    query = urlencode({"format": fmt, "file_index": file_index, "link": token})
    return DownloadLink(f"{DOOR}/{dataset_id}?{query}", expires)


async def principal_for(
    session: AsyncSession,
    settings: Settings,
    token: str,
    *,
    dataset_id: int,
    fmt: str,
    file_index: int,
    ip: str | None,
) -> Principal:
    """The user a link was made for, read fresh: Unauthenticated when the link is expired, altered,
    made for another file, or its user, tenant or log-in session is no longer valid."""
    claims = jwt_tokens.decode_link(token, secret=settings.signing_key(), purpose=PURPOSE)
    try:
        user_id = int(claims["sub"])
        issued_at = int(claims["iat"])
        target = (int(claims["did"]), str(claims["fmt"]), int(claims["idx"]))
        session_id = claims.get("sid")
        token_id = int(claims["tok"]) if claims.get("tok") is not None else None
    except (KeyError, TypeError, ValueError):
        raise Unauthenticated("The link is invalid.", code=ErrorCode.LINK_INVALID) from None
    if target != (dataset_id, fmt.lower(), file_index):
        raise Unauthenticated("The link is for another file.", code=ErrorCode.LINK_INVALID)
    user, revoked = await AuthRepository(session).bearer(user_id, str(session_id) if session_id else None)
    if user is None or not user.is_active:
        raise Unauthenticated("The account is inactive or no longer exists.", code=ErrorCode.ACCOUNT_INACTIVE)
    if not user.tenant_active:
        raise Unauthenticated("The account's tenant is inactive.", code=ErrorCode.TENANT_INACTIVE)
    valid_after = as_utc(user.tokens_valid_after)
    if revoked or (valid_after is not None and issued_at < int(valid_after.timestamp())):
        raise Unauthenticated("The link is no longer valid: its log-in session has ended.", code=ErrorCode.LINK_EXPIRED)
    scope = await _token_scope(session, token_id, user_id) if token_id is not None else None
    return Principal(
        user.user_id,
        user.tenant_id,
        user.username,
        Role(user.role),
        "download_link",
        api_token_id=token_id,
        ip=ip,
        scope=scope,
    )


async def _token_scope(session: AsyncSession, token_id: int, user_id: int) -> TokenScope | None:
    """The scope of the API token a link was made with, if that token still works."""
    row = await AuthRepository(session).api_token(token_id)
    expires = as_utc(row.expires_at) if row is not None else None
    if row is None or row.user_id != user_id or row.revoked_at is not None:
        raise Unauthenticated("The link is no longer valid: the API token it was made with is revoked.", code=ErrorCode.LINK_EXPIRED)
    if expires is not None and expires <= utcnow():
        raise Unauthenticated("The link is no longer valid: the API token it was made with has expired.", code=ErrorCode.LINK_EXPIRED)
    return scope_of(row)
