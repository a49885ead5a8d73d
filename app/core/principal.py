"""Who is calling: built once per request from the bearer token, read from the database so
deactivation and role changes take effect on the very next request."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.core.models import Role


@dataclass(frozen=True, slots=True)
class Principal:
    user_id: int
    tenant_id: int
    username: str
    role: Role
    via: str  # "jwt" | "api_token"
    jti: str | None = None
    token_expires_at: datetime | None = None
    api_token_id: int | None = None
    ip: str | None = None

    @property
    def is_superuser(self) -> bool:
        return self.role is Role.SuperUser

    def at_least(self, role: Role) -> bool:
        return self.role.rank >= role.rank


@dataclass(frozen=True, slots=True)
class RequestMeta:
    """What the service layer may know about the transport: only the client address."""

    ip: str | None = None
