"""Login, token resolution, logout, API tokens, accepting an invitation and login throttling."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.auth import two_factor
from app.core.auth.models import ApiToken, LoginThrottle, RevokedToken
from app.core.auth.payloads import ApiTokenCreate
from app.core.auth.repository import ApiTokenRepository, AuthRepository
from app.core.authz import Action, require
from app.core.clock import as_utc
from app.core.error_codes import ErrorCode
from app.core.errors import Invalid, NotFound, TooManyRequests, Unauthenticated
from app.core.lru import BoundedLRU
from app.core.models import Role, TokenAction, utcnow
from app.core.principal import Principal, RequestMeta, TokenScope
from app.core.projects.repository import ProjectRepository
from app.core.security import jwt_tokens, opaque_tokens
from app.core.security.passwords import check_password_policy, hash_password_async, verify_password_async
from app.core.services import audit
from app.core.settings import Settings
from app.core.users.models import User
from app.core.users.payloads import SetupPassword

_BAD_CREDENTIALS = "Incorrect username or password."
# Access tokens already verified, by (signing key, token): checking a JWT's signature and claims
# (python-jose) cost more than the rest of authentication's Python. A token's claims never change,
# so only its expiry is checked again on each use (as jose checks it: whole seconds); revocation,
# the user and the tenant are read from the database every time, as before.
_VERIFIED: BoundedLRU[tuple[str, str], jwt_tokens.AccessClaims] = BoundedLRU(1024)


@dataclass(frozen=True, slots=True)
class IssuedToken:
    access_token: str
    token_type: str
    expires_in: int


async def _check_throttle(repo: AuthRepository, keys: list[str]) -> None:
    now = utcnow()
    for key in keys:
        row = await repo.throttle(key)
        locked = as_utc(row.locked_until) if row else None
        if locked and locked > now:
            wait = int((locked - now).total_seconds()) + 1
            raise TooManyRequests(
                f"Too many failed login attempts; try again in {wait} seconds.", retry_after=wait,
                code=ErrorCode.LOGIN_THROTTLED,
            )


async def _count_failure(
    session: AsyncSession, repo: AuthRepository, settings: Settings, key: str, limit: int
) -> None:
    now = utcnow()
    row = await repo.throttle(key)
    window = timedelta(seconds=settings.login_window_seconds)
    if row is None:
        row = LoginThrottle(key=key, failures=0, window_start=now)
        session.add(row)
    if now - (as_utc(row.window_start) or now) > window:
        row.failures, row.window_start, row.locked_until = 0, now, None
    row.failures += 1
    if row.failures >= limit:
        row.locked_until = now + timedelta(seconds=settings.login_lockout_seconds)


async def login(
    session: AsyncSession,
    meta: RequestMeta,
    settings: Settings,
    *,
    username: str,
    password: str,
    otp: str | None = None,
) -> IssuedToken:
    repo = AuthRepository(session)
    user_key, ip_key = f"user:{username.lower()}", f"ip:{meta.ip or 'unknown'}"
    await _check_throttle(repo, [user_key, ip_key])
    user = await repo.user_by_username(username)
    # verify even for unknown users so both paths take the same time
    ok = await verify_password_async(password, user.password_hash if user else None)
    tenant = await repo.tenant(user.tenant_id) if user else None
    if not ok or user is None or not user.is_active or tenant is None or not tenant.is_active:
        await _count_failure(session, repo, settings, user_key, settings.login_max_failures)
        await _count_failure(session, repo, settings, ip_key, settings.login_max_failures * 4)
        audit.record(
            session,
            None,
            "auth.login",
            success=False,
            ip=meta.ip,
            actor_username=username[:64],
            tenant_id=user.tenant_id if user else None,
            target_type="user",
            target_id=user.id if user else None,
            details={"reason": "bad credentials or inactive"},
        )
        audit.keep_despite_error(session)
        raise Unauthenticated(_BAD_CREDENTIALS, code=ErrorCode.INVALID_CREDENTIALS)
    assert user.id is not None
    if user.two_factor_enabled:
        await _second_factor(session, repo, meta, settings, user, user_key, otp)
    token, claims = jwt_tokens.issue(
        secret=settings.signing_key(),
        user_id=user.id,
        tenant_id=user.tenant_id,
        role=user.role,
        ttl=timedelta(hours=settings.token_ttl_hours),
        valid_after=as_utc(user.tokens_valid_after),
    )
    throttle = await repo.throttle(user_key)
    if throttle is not None:
        await session.delete(throttle)
    user.last_login_at = utcnow()
    principal = Principal(
        user.id, user.tenant_id, user.username, Role(user.role), "jwt", claims.jti, ip=meta.ip
    )
    audit.record(session, principal, "auth.login", target_type="user", target_id=user.id)
    return IssuedToken(token, "bearer", settings.token_ttl_hours * 3600)


async def _second_factor(
    session: AsyncSession,
    repo: AuthRepository,
    meta: RequestMeta,
    settings: Settings,
    user: User,
    user_key: str,
    otp: str | None,
) -> None:
    """A 2FA user also needs a fresh TOTP code or an unused recovery code; wrong codes count as failures."""
    if not otp:
        raise Unauthenticated(
            "A one-time code is required: send 'otp' with a code from the authenticator app "
            "or a recovery code.",
            code=ErrorCode.ONE_TIME_CODE_REQUIRED, field="otp",
        )
    if await two_factor.check_second_factor(session, settings, user, otp):
        return
    await _count_failure(session, repo, settings, user_key, settings.login_max_failures)
    audit.record(
        session,
        None,
        "auth.login",
        success=False,
        ip=meta.ip,
        actor_username=user.username,
        tenant_id=user.tenant_id,
        target_type="user",
        target_id=user.id,
        details={"reason": "bad one-time code"},
    )
    audit.keep_despite_error(session)
    raise Unauthenticated(
        "The one-time code is invalid or was already used; a valid one-time code is required.",
        code=ErrorCode.INVALID_ONE_TIME_CODE, field="otp",
    )


def _verified_claims(token: str, secret: str) -> jwt_tokens.AccessClaims:
    """jwt_tokens.decode, remembered for the tokens that passed it (bounded, least recent out)."""
    key = (secret, token)
    claims = _VERIFIED.get(key)
    if claims is not None and int(claims.expires_at.timestamp()) >= int(utcnow().timestamp()):
        return claims
    claims = jwt_tokens.decode(token, secret=secret)  # an expired one raises here, as before
    _VERIFIED.put(key, claims)
    return claims


async def authenticate(session: AsyncSession, settings: Settings, token: str, *, ip: str | None) -> Principal:
    """Resolve a bearer token (JWT or `tdg_` API token) to a principal, reading the user fresh."""
    repo = AuthRepository(session)
    if opaque_tokens.looks_like_api_token(token):
        row = await repo.api_token_by_hash(opaque_tokens.digest(token))
        now = utcnow()
        if row is None or row.revoked_at is not None:
            raise Unauthenticated("The API token is invalid or revoked.", code=ErrorCode.TOKEN_INVALID)
        expires = as_utc(row.expires_at)
        if expires is not None and expires <= now:
            raise Unauthenticated("The API token has expired.", code=ErrorCode.TOKEN_EXPIRED)
        user, _ = await repo.bearer(row.user_id, None)
        # last_used_at at minute granularity: no write on every CI poll
        last = as_utc(row.last_used_at)
        if last is None or now - last > timedelta(minutes=1):
            row.last_used_at = now
        principal_via, jti, exp, token_id = "api_token", None, expires, row.id
        scope = scope_of(row)
    else:
        claims = _verified_claims(token, settings.signing_key())
        user, revoked = await repo.bearer(claims.user_id, claims.jti)
        if revoked:
            raise Unauthenticated("The access token has been revoked; log in again.", code=ErrorCode.TOKEN_REVOKED)
        valid_after = as_utc(user.tokens_valid_after) if user else None
        if user is not None and valid_after is not None and claims.issued_at < valid_after:
            raise Unauthenticated("The access token is no longer valid; log in again.", code=ErrorCode.TOKEN_REVOKED)
        principal_via, jti, exp, token_id = "jwt", claims.jti, claims.expires_at, None
        scope = None
    if user is None or not user.is_active:
        raise Unauthenticated("The account is inactive or no longer exists.", code=ErrorCode.ACCOUNT_INACTIVE)
    if not user.tenant_active:
        raise Unauthenticated("The account's tenant is inactive.", code=ErrorCode.TENANT_INACTIVE)
    return Principal(
        user.user_id,
        user.tenant_id,
        user.username,
        Role(user.role),
        principal_via,
        jti,
        exp,
        token_id,
        ip,
        scope,
    )


def scope_of(row: ApiToken) -> TokenScope | None:
    """An API token's scope as stored (None: unscoped)."""
    if row.scope_actions is None and row.scope_project_ids is None:
        return None
    projects = frozenset(row.scope_project_ids) if row.scope_project_ids is not None else None
    actions = frozenset(TokenAction(a) for a in row.scope_actions) if row.scope_actions is not None else None
    return TokenScope(projects, actions if actions is not None else frozenset(TokenAction))


async def logout(session: AsyncSession, principal: Principal) -> str:
    """Revoke the access token of this request; returns what happened, in words."""
    audit.record(
        session,
        principal,
        "auth.logout",
        target_type="user",
        target_id=principal.user_id,
        details={"via": principal.via},
    )
    if principal.via != "jwt" or not principal.jti:
        # a CI pipeline's logout must not destroy its long-lived credential by accident
        return "API tokens stay valid after logout; revoke them with DELETE /settings/tokens/{token_id}."
    session.add(
        RevokedToken(
            jti=principal.jti, user_id=principal.user_id, expires_at=principal.token_expires_at or utcnow()
        )
    )
    await AuthRepository(session).purge_expired_revocations(utcnow())
    return "Logged out; this token no longer works."


async def create_api_token(
    session: AsyncSession, principal: Principal, data: ApiTokenCreate
) -> tuple[ApiToken, str]:
    require(principal, Action.ACCOUNT_UPDATE)  # a scoped token makes no tokens (it would outgrow itself)
    expires = as_utc(data.expires_at)
    if expires is not None and expires <= utcnow():
        raise Invalid("expires_at must be in the future.", code=ErrorCode.INVALID_EXPIRY, field="expires_at")
    project_ids, actions = await _checked_scope(session, principal, data)
    secret = opaque_tokens.new_api_token()
    row = ApiToken(
        user_id=principal.user_id,
        tenant_id=principal.tenant_id,
        name=data.name,
        token_hash=opaque_tokens.digest(secret),
        token_prefix=secret[:8],
        expires_at=expires,
        scope_project_ids=project_ids,
        scope_actions=actions,
    )
    session.add(row)
    await session.flush()
    audit.record(
        session,
        principal,
        "token.create",
        target_type="api_token",
        target_id=row.id,
        details={"name": data.name, "project_ids": project_ids, "actions": actions},
    )
    return row, secret


async def _checked_scope(
    session: AsyncSession, principal: Principal, data: ApiTokenCreate
) -> tuple[list[int] | None, list[str] | None]:
    """The scope to store: each project one the owner sees now (else 422, naming it), the actions
    in TokenAction's order, all four when only projects are given; (None, None) when unscoped."""
    if data.project_ids is None and data.actions is None:
        return None, None
    project_ids = None
    if data.project_ids is not None:
        project_ids = sorted(set(data.project_ids))
        projects = ProjectRepository(session, principal)
        for project_id in project_ids:
            try:
                await projects.get(project_id)
            except NotFound:
                raise Invalid(
                    f"project_ids: project {project_id} is not one you can see; a token's scope can "
                    "only name your projects.",
                    code=ErrorCode.INVALID_TOKEN_SCOPE, field="project_ids",
                ) from None
    chosen = set(data.actions) if data.actions is not None else set(TokenAction)
    return project_ids, [a.value for a in TokenAction if a in chosen]


async def list_api_tokens(session: AsyncSession, principal: Principal) -> list[ApiToken]:
    return await ApiTokenRepository(session, principal).own_tokens()


async def revoke_api_token(session: AsyncSession, principal: Principal, token_id: int) -> ApiToken:
    require(principal, Action.ACCOUNT_UPDATE)
    row = await ApiTokenRepository(session, principal).own_token(token_id)
    row.revoked_at = utcnow()
    audit.record(session, principal, "token.revoke", target_type="api_token", target_id=row.id)
    return row


async def setup_password(session: AsyncSession, meta: RequestMeta, data: SetupPassword) -> User:
    repo = AuthRepository(session)
    invitation = await repo.invitation_by_hash(opaque_tokens.digest(data.token))
    if invitation is None or invitation.used_at is not None:
        raise NotFound("The invitation token is invalid or has already been used.", code=ErrorCode.INVITATION_NOT_FOUND, field="token")
    if (as_utc(invitation.expires_at) or utcnow()) <= utcnow():
        raise Invalid("The invitation has expired; ask for a new one.", code=ErrorCode.INVITATION_EXPIRED, field="token")
    check_password_policy(data.password)
    user = await repo.user_by_id(invitation.user_id)
    if user is None:
        raise NotFound("The invitation token is invalid or has already been used.", code=ErrorCode.INVITATION_NOT_FOUND, field="token")
    user.password_hash = await hash_password_async(data.password)
    user.is_active = True
    user.updated_at = utcnow()
    invitation.used_at = utcnow()
    audit.record(
        session,
        None,
        "user.setup_password",
        target_type="user",
        target_id=user.id,
        tenant_id=user.tenant_id,
        actor_username=user.username,
        ip=meta.ip,
    )
    return user
