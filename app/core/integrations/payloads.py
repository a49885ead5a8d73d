"""What a client sends to connect an integration and to export a dataset to an object store."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    StringConstraints,
)

from app.core.payloads import FormatName, Id, Name, Strict, Update

WEBHOOK_EVENTS = ("dataset.completed", "dataset.failed", "schema.uploaded", "project.created")


class WebhookConfig(Strict):
    url: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]


class S3Config(Strict):
    bucket: Annotated[
        str,
        StringConstraints(
            strip_whitespace=True, min_length=3, max_length=63, pattern=r"^[a-z0-9][a-z0-9.\-]{1,61}[a-z0-9]$"
        ),
    ]
    endpoint_url: Annotated[str, StringConstraints(strip_whitespace=True, max_length=2000)] | None = None
    region: Annotated[str, StringConstraints(strip_whitespace=True, max_length=64)] = "us-east-1"
    prefix: Annotated[str, StringConstraints(strip_whitespace=True, max_length=500)] = ""
    access_key_id: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=256)]
    secret_access_key: Annotated[str, StringConstraints(min_length=1, max_length=256)]


class IntegrationCreate(Strict):
    name: Name
    provider: Literal["webhook", "s3"]
    config: dict[str, Any] = Field(description="Provider fields, see GET /integrations/providers")
    events: (
        Annotated[
            list[Literal["dataset.completed", "dataset.failed", "schema.uploaded", "project.created"]],
            Field(max_length=10),
        ]
        | None
    ) = Field(default=None, description="webhook: events to send (default all)")
    is_active: bool = True


class IntegrationUpdate(Update):
    name: Name | None = None
    config: dict[str, Any] | None = Field(
        default=None, description="Fields to change; omitted secrets are kept"
    )
    events: (
        Annotated[
            list[Literal["dataset.completed", "dataset.failed", "schema.uploaded", "project.created"]],
            Field(max_length=10),
        ]
        | None
    ) = None
    is_active: bool | None = Field(
        default=None, description="true re-enables an integration disabled after failures"
    )
    rotate_secret: bool = Field(default=False, description="webhook: issue a new signing secret (shown once)")


class ObjectExportCreate(Strict):
    integration_id: Id
    formats: Annotated[list[FormatName], Field(min_length=1, max_length=5)] | None = Field(
        default=None, description="Formats to upload (default: the dataset's types)"
    )
    prefix: (
        Annotated[
            str, StringConstraints(strip_whitespace=True, max_length=500, pattern=r"^[A-Za-z0-9!_.*'()/-]*$")
        ]
        | None
    ) = None
