"""The authentication tables: revoked and API tokens, sign-in throttling, two-factor codes."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, BigInteger, Column, DateTime
from sqlmodel import Field, SQLModel

from app.core.models import NEVER_REUSE_IDS, utcnow


class RevokedToken(SQLModel, table=True):
    __tablename__ = "revoked_token"
    jti: str = Field(primary_key=True, max_length=64)
    user_id: int = Field(index=True)
    expires_at: datetime = Field(sa_type=DateTime(timezone=True), index=True)


class ApiToken(SQLModel, table=True):
    __tablename__ = "api_token"
    __table_args__ = NEVER_REUSE_IDS
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", index=True)
    tenant_id: int = Field(foreign_key="tenant.id", index=True)
    name: str = Field(max_length=100)
    token_hash: str = Field(max_length=64, unique=True)
    token_prefix: str = Field(max_length=16)
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
    last_used_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    expires_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    revoked_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    # the token's scope (both None: unscoped, the full power of its owner): the projects it may
    # reach (None: every project its owner sees) and the TokenAction values it may take
    scope_project_ids: list[int] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    scope_actions: list[str] | None = Field(default=None, sa_column=Column(JSON, nullable=True))


class LoginThrottle(SQLModel, table=True):
    """Failed-login counters per key ("user:<name>" / "ip:<address>")."""

    __tablename__ = "login_throttle"
    key: str = Field(primary_key=True, max_length=200)
    failures: int = 0
    window_start: datetime = Field(sa_type=DateTime(timezone=True))
    locked_until: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))


class RecoveryCode(SQLModel, table=True):
    """Two-factor recovery codes: SHA-256 of high-entropy codes, each usable once."""

    __tablename__ = "recovery_code"
    __table_args__ = NEVER_REUSE_IDS
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", index=True)
    code_hash: str = Field(max_length=64)
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
    used_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))


class TotpUsedStep(SQLModel, table=True):
    """TOTP time steps already accepted per user: the primary key refuses a replay even under a race."""

    __tablename__ = "totp_used_step"
    user_id: int = Field(foreign_key="user_account.id", primary_key=True)
    step: int = Field(sa_type=BigInteger, primary_key=True)
    used_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
