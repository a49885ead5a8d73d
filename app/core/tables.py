"""Every table of the service, for the one place that needs them all at once: the migrations
(Alembic compares SQLModel.metadata with the database). A domain's tables live in its package
(app/core/<domain>/models.py); importing this module registers all of them on the metadata."""

from types import ModuleType

from app.core import models as shared_models
from app.core.auth import models as auth_models
from app.core.datasets import models as datasets_models
from app.core.integrations import models as integrations_models
from app.core.library import models as library_models
from app.core.notifications import models as notifications_models
from app.core.projects import models as projects_models
from app.core.tenants import models as tenants_models
from app.core.users import models as users_models

TABLE_MODULES: tuple[ModuleType, ...] = (shared_models, datasets_models, library_models, projects_models, tenants_models, users_models, auth_models, notifications_models, integrations_models)
