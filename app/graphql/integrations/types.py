"""Types of integrations, webhook deliveries and object exports. Secrets never
appear here except the one-time fields named as such."""

from __future__ import annotations

import orjson
import strawberry
from strawberry.scalars import JSON

from app.core.clock import iso
from app.core.integrations import service as integrations
from app.core.integrations.models import DeliveryAttempt as DeliveryAttemptRow
from app.core.integrations.models import Integration as IntegrationRow
from app.core.integrations.models import ObjectExport as ObjectExportRow
from app.core.integrations.models import WebhookDelivery as WebhookDeliveryRow


@strawberry.type
class ProviderField:
    name: str
    type: str
    required: bool
    secret: bool = strawberry.field(description="Write-only: accepted, never returned")
    description: str


@strawberry.type
class IntegrationProvider:
    name: str
    description: str
    fields: list[ProviderField]

    @classmethod
    def from_provider(cls, p: integrations.Provider) -> IntegrationProvider:
        return cls(
            name=p.name,
            description=p.description,
            fields=[
                ProviderField(
                    name=f.name, type=f.type, required=f.required, secret=f.secret, description=f.description
                )
                for f in p.fields
            ],
        )


@strawberry.type(description="A configured integration; secret fields are listed by name only.")
class Integration:
    integration_id: int
    name: str
    provider: str
    config: JSON
    secret_fields: list[str]
    events: list[str]
    is_active: bool
    consecutive_failures: int
    disabled_reason: str | None
    tenant_id: int
    created_by: int | None
    created_at: str
    updated_at: str

    @classmethod
    def from_row(cls, row: IntegrationRow) -> Integration:
        assert row.id is not None
        return cls(
            integration_id=row.id,
            name=row.name,
            provider=row.provider,
            config=JSON(integrations.public_config(row)),
            secret_fields=sorted(integrations.SECRET_FIELDS.get(row.provider, set())),
            events=list(row.events),
            is_active=row.is_active,
            consecutive_failures=row.consecutive_failures,
            disabled_reason=row.disabled_reason,
            tenant_id=row.tenant_id,
            created_by=row.created_by,
            created_at=iso(row.created_at) or "",
            updated_at=iso(row.updated_at) or "",
        )


@strawberry.type(
    description="An integration as created or updated; signing_secret is shown only when it was "
    "just generated (webhook creation or rotate_secret)."
)
class IntegrationSaved(Integration):
    signing_secret: str | None = None


@strawberry.type
class IntegrationPage:
    items: list[Integration]
    total: int


@strawberry.type
class DeliveryAttempt:
    attempt: int
    at: str
    status_code: int | None
    error: str | None
    response_body: str | None = strawberry.field(description="The receiver's answer, first 1 KB, as text")
    duration_ms: int

    @classmethod
    def from_row(cls, row: DeliveryAttemptRow) -> DeliveryAttempt:
        return cls(
            attempt=row.attempt,
            at=iso(row.at) or "",
            status_code=row.status_code,
            error=row.error,
            response_body=row.response_body,
            duration_ms=row.duration_ms,
        )


@strawberry.type(description="One event for one webhook integration, with every attempt.")
class WebhookDelivery:
    delivery_id: int
    integration_id: int
    webhook_id: str
    event_type: str
    status: str
    attempts: int
    next_attempt_at: str | None
    last_status_code: int | None
    last_error: str | None
    created_at: str
    finished_at: str | None
    payload: JSON
    attempt_log: list[DeliveryAttempt]

    @classmethod
    def from_row(cls, row: WebhookDeliveryRow, attempts: list[DeliveryAttemptRow]) -> WebhookDelivery:
        assert row.id is not None
        return cls(
            delivery_id=row.id,
            integration_id=row.integration_id,
            webhook_id=row.webhook_id,
            event_type=row.event_type,
            status=row.status,
            attempts=row.attempts,
            next_attempt_at=iso(row.next_attempt_at) if row.status == "pending" else None,
            last_status_code=row.last_status_code,
            last_error=row.last_error,
            created_at=iso(row.created_at) or "",
            finished_at=iso(row.finished_at),
            payload=orjson.loads(row.body),
            attempt_log=[DeliveryAttempt.from_row(a) for a in attempts],
        )


@strawberry.type
class DeliveryPage:
    items: list[WebhookDelivery]
    total: int


@strawberry.type(description="The outcome of a connection test.")
class ConnectionCheck:
    ok: bool
    detail: str
    status_code: int | None
    duration_ms: int
    delivery_id: int | None

    @classmethod
    def from_outcome(cls, c: integrations.ConnectionCheck) -> ConnectionCheck:
        return cls(
            ok=c.ok,
            detail=c.detail,
            status_code=c.status_code,
            duration_ms=c.duration_ms,
            delivery_id=c.delivery_id,
        )


@strawberry.type
class ExportedObject:
    key: str
    format: str
    file_index: int
    records: int
    size_bytes: int
    sha256: str


@strawberry.type(description="An upload of a dataset's files to an object-storage integration.")
class ObjectExport:
    export_id: int
    dataset_id: int
    integration_id: int | None
    status: str = strawberry.field(description="completed or failed")
    error: str | None
    bucket: str
    formats: list[str]
    objects: list[ExportedObject]
    created_by: int | None
    created_at: str
    finished_at: str | None

    @classmethod
    def from_row(cls, row: ObjectExportRow) -> ObjectExport:
        assert row.id is not None
        return cls(
            export_id=row.id,
            dataset_id=row.dataset_id,
            integration_id=row.integration_id,
            status=row.status,
            error=row.error,
            bucket=row.bucket,
            formats=list(row.formats),
            objects=[
                ExportedObject(
                    key=o["key"],
                    format=o["format"],
                    file_index=o["file_index"],
                    records=o["records"],
                    size_bytes=o["size_bytes"],
                    sha256=o["sha256"],
                )
                for o in row.objects
            ],
            created_by=row.created_by,
            created_at=iso(row.created_at) or "",
            finished_at=iso(row.finished_at),
        )
