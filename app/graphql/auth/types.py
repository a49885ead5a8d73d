"""Sign-in, API token and two-factor types."""

from __future__ import annotations

import strawberry

from app.core.auth import two_factor
from app.core.auth.models import ApiToken as ApiTokenRow
from app.core.clock import iso
from app.core.models import TokenAction
from app.graphql import common as _enums  # noqa: F401  (registers Role/ProjectRole/TokenAction once, with descriptions)


@strawberry.type
class TokenResponse:
    access_token: str
    token_type: str
    expires_in: int


@strawberry.type(description="An API token; the secret itself is only returned once, at creation.")
class ApiToken:
    token_id: int
    name: str
    prefix: str
    created_at: str
    last_used_at: str | None
    expires_at: str | None
    project_ids: list[int] | None = strawberry.field(
        description="Scope: the only projects the token reaches; null for every project its owner sees"
    )
    actions: list[TokenAction] | None = strawberry.field(
        description="Scope: the only actions the token takes; null for an unscoped token, which has "
        "its owner's full power"
    )

    @classmethod
    def from_row(cls, row: ApiTokenRow) -> ApiToken:
        assert row.id is not None
        actions = row.scope_actions
        return cls(
            token_id=row.id,
            name=row.name,
            prefix=row.token_prefix,
            created_at=iso(row.created_at) or "",
            last_used_at=iso(row.last_used_at),
            expires_at=iso(row.expires_at),
            project_ids=list(row.scope_project_ids) if row.scope_project_ids is not None else None,
            actions=[TokenAction(a) for a in actions] if actions is not None else None,
        )


@strawberry.type
class ApiTokenCreated(ApiToken):
    token: str


@strawberry.type(
    description="Two-factor state. secret/otpauth_uri appear when enrolment starts; "
    "recovery_codes once, when it is confirmed."
)
class TwoFactorStatus:
    enabled: bool
    detail: str
    secret: str | None
    otpauth_uri: str | None
    recovery_codes: list[str]

    @classmethod
    def from_state(cls, state: two_factor.TwoFactorState) -> TwoFactorStatus:
        return cls(
            enabled=state.enabled,
            detail=state.detail,
            secret=state.secret,
            otpauth_uri=state.otpauth_uri,
            recovery_codes=list(state.recovery_codes),
        )
