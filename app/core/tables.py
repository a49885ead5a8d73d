"""Every table of the service, for the one place that needs them all at once: the migrations
(Alembic compares SQLModel.metadata with the database). A domain's tables live in its package
(app/core/<domain>/models.py); importing this module registers all of them on the metadata."""

import app.core.datasets.models  # noqa: F401
import app.core.models  # noqa: F401
