"""Who is calling: built once per request from the bearer token, read from the database so
deactivation and role changes take effect on the very next request."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.core.models import Role, TokenAction


@dataclass(frozen=True, slots=True)
class TokenScope:
    """What a scoped API token is limited to: the projects it may reach (None: every project its
    owner sees) and the actions it may take. Hashable: statements are cached per caller by it."""

    project_ids: frozenset[int] | None
    actions: frozenset[TokenAction]

    def allows_project(self, project_id: int | None) -> bool:
        return self.project_ids is None or project_id in self.project_ids


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
    scope: TokenScope | None = None  # a scoped API token's limits; None: the full power of the user

    @property
    def is_superuser(self) -> bool:
        return self.role is Role.SuperUser

    def at_least(self, role: Role) -> bool:
        return self.role.rank >= role.rank


@dataclass(frozen=True, slots=True)
class RequestMeta:
    """What the service layer may know about the transport: only the client address."""

    ip: str | None = None
