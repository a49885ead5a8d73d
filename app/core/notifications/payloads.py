"""What a user sends to choose which events notify them, and how."""

from __future__ import annotations

from typing import Literal

from pydantic import (
    Field,
)

from app.core.payloads import Strict


class NotificationChannels(Strict):
    in_app: bool | None = None
    webhook: bool | None = None


class NotificationPrefsUpdate(Strict):
    preferences: dict[
        Literal["dataset.completed", "dataset.failed", "schema.uploaded", "project.created"],
        NotificationChannels,
    ] = Field(
        description="Per event: {in_app, webhook} switches; omitted events and switches keep their value"
    )
