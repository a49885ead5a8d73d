"""Integration tests: the shared app fixtures with a compressed webhook schedule (two retries
0.2 s apart, integrations disabled after two failed events) and private addresses allowed, since
every receiver here is on loopback. The SSRF tests switch the guard back on."""

from __future__ import annotations

import pytest

from app.core.settings import Settings


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={
        "webhook_allow_private": True, "webhook_retry_schedule": [0.2, 0.2], "webhook_poll_seconds": 0.05,
        "webhook_max_failed_events": 2, "webhook_timeout_seconds": 3.0, "dispatch_interval_seconds": 0.2,
    })
