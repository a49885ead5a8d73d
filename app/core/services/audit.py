"""Recording audit rows. Called by services, never by handlers."""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.models import AuditLog
from app.core.principal import Principal

COMMIT_DESPITE_ERROR = "commit_despite_error"


def record(
    session: AsyncSession,
    principal: Principal | None,
    action: str,
    *,
    target_type: str | None = None,
    target_id: int | str | None = None,
    project_id: int | None = None,
    tenant_id: int | None = None,
    details: dict[str, Any] | None = None,
    success: bool = True,
    ip: str | None = None,
    actor_username: str | None = None,
) -> None:
    session.add(
        AuditLog(
            actor_id=principal.user_id if principal else None,
            actor_username=principal.username if principal else actor_username,
            role=principal.role.value if principal else None,
            tenant_id=tenant_id if tenant_id is not None else (principal.tenant_id if principal else None),
            action=action,
            project_id=project_id,
            target_type=target_type,
            target_id=str(target_id) if target_id is not None else None,
            details=details or {},
            ip=ip if ip is not None else (principal.ip if principal else None),
            success=success,
        )
    )


def keep_despite_error(session: AsyncSession) -> None:
    """Failed logins must be recorded (and counted) although the operation ends in an error."""
    session.info[COMMIT_DESPITE_ERROR] = True
