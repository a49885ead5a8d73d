"""Dataset tests: the shared app fixtures with a fast dispatcher, so a created dataset is picked
up within a fraction of a second instead of the production one-second tick."""

from __future__ import annotations

import pytest

from app.core.settings import Settings


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"dispatch_interval_seconds": 0.2})
