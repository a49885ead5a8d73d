"""Tenant and audit types."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from app.core.clock import iso
from app.core.models import AuditLog as AuditRow
from app.core.tenants.models import Tenant as TenantRow


@strawberry.type
class Tenant:
    tenant_id: int
    name: str
    is_active: bool
    max_record_count: int
    max_concurrent_generations: int
    retention_days: int | None
    created_at: str
    updated_at: str

    @classmethod
    def from_row(cls, row: TenantRow) -> Tenant:
        assert row.id is not None
        return cls(
            tenant_id=row.id,
            name=row.name,
            is_active=row.is_active,
            max_record_count=row.max_record_count,
            max_concurrent_generations=row.max_concurrent_generations,
            retention_days=row.retention_days,
            created_at=iso(row.created_at) or "",
            updated_at=iso(row.updated_at) or "",
        )


@strawberry.type
class TenantPage:
    items: list[Tenant]
    total: int


@strawberry.type
class TenantCreated(Tenant):
    admin_user_id: int
    admin_username: str


@strawberry.type(description="One append-only audit record.")
class AuditLogEntry:
    id: int
    at: str
    actor_id: int | None
    actor_username: str | None
    role: str | None
    tenant_id: int | None
    action: str
    project_id: int | None
    target_type: str | None
    target_id: str | None
    details: JSON
    ip: str | None
    success: bool

    @classmethod
    def from_row(cls, row: AuditRow) -> AuditLogEntry:
        assert row.id is not None
        return cls(
            id=row.id,
            at=iso(row.at) or "",
            actor_id=row.actor_id,
            actor_username=row.actor_username,
            role=row.role,
            tenant_id=row.tenant_id,
            action=row.action,
            project_id=row.project_id,
            target_type=row.target_type,
            target_id=row.target_id,
            details=JSON(row.details or {}),
            ip=row.ip,
            success=row.success,
        )


@strawberry.type
class AuditLogPage:
    items: list[AuditLogEntry]
    total: int
