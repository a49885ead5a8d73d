"""The user tables: accounts and their invitations."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, DateTime, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.core.models import NEVER_REUSE_IDS, Role, utcnow


class User(SQLModel, table=True):
    __tablename__ = "user_account"
    __table_args__ = (UniqueConstraint("tenant_id", "email", name="uq_user_tenant_email"), NEVER_REUSE_IDS)
    id: int | None = Field(default=None, primary_key=True)
    tenant_id: int = Field(foreign_key="tenant.id", index=True)
    username: str = Field(max_length=64, unique=True)
    email: str | None = Field(default=None, max_length=254)
    display_name: str | None = Field(default=None, max_length=100)
    role: str = Field(default=Role.Tester.value, max_length=16)
    is_active: bool = True
    password_hash: str | None = None
    theme: str = "system"
    locale: str = "en_US"
    avatar_path: str | None = None
    notification_prefs: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    two_factor_enabled: bool = False
    # tokens issued before this instant are void (password change, logout everywhere)
    tokens_valid_after: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    created_by: int | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
    updated_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
    last_login_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
    # TOTP secrets are Fernet-encrypted (app/core/security/sealed.py); `pending` waits for confirmation
    totp_secret_enc: str | None = None
    totp_pending_enc: str | None = None
    deleted_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))


class Invitation(SQLModel, table=True):
    __tablename__ = "invitation"
    __table_args__ = NEVER_REUSE_IDS
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", index=True)
    tenant_id: int = Field(foreign_key="tenant.id", index=True)
    token_hash: str = Field(max_length=64, unique=True)
    created_by: int | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=DateTime(timezone=True))
    expires_at: datetime = Field(sa_type=DateTime(timezone=True))
    used_at: datetime | None = Field(default=None, sa_type=DateTime(timezone=True))
