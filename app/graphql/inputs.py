"""GraphQL input types, derived from the service-layer payload models (one definition)."""

from __future__ import annotations

from typing import Any, TypeVar

import strawberry
from pydantic import BaseModel, Field
from strawberry.experimental.pydantic import input as pydantic_input
from strawberry.scalars import JSON

from app.core.auth import payloads as auth_payloads
from app.core.datasets import payloads as dataset_payloads
from app.core.library import payloads as library_payloads
from app.core.projects import payloads as projects_payloads
from app.core.tenants import payloads as tenants_payloads
from app.core.users import payloads as users_payloads
from app.core.validation import parse
from app.graphql import common as _enums  # noqa: F401  (registers Role/ProjectRole once, with descriptions)

M = TypeVar("M", bound=BaseModel)


@pydantic_input(model=projects_payloads.ProjectCreate, all_fields=True)
class ProjectCreateInput:
    pass


@pydantic_input(model=projects_payloads.ProjectUpdate, all_fields=True)
class ProjectUpdateInput:
    pass


@pydantic_input(model=projects_payloads.MemberAdd, all_fields=True)
class MemberAddInput:
    pass


@pydantic_input(model=projects_payloads.MemberRemove, all_fields=True)
class MemberRemoveInput:
    pass


@pydantic_input(model=users_payloads.UserCreate, all_fields=True)
class UserCreateInput:
    pass


@pydantic_input(model=users_payloads.UserInvite, all_fields=True)
class UserInviteInput:
    pass


@pydantic_input(model=users_payloads.UserUpdate, all_fields=True)
class UserUpdateInput:
    pass


@pydantic_input(model=users_payloads.SetupPassword, all_fields=True)
class SetupPasswordInput:
    pass


@pydantic_input(model=tenants_payloads.TenantCreate, all_fields=True)
class TenantCreateInput:
    pass


@pydantic_input(model=tenants_payloads.TenantUpdate, all_fields=True)
class TenantUpdateInput:
    pass


@pydantic_input(model=auth_payloads.ApiTokenCreate, all_fields=True)
class ApiTokenCreateInput:
    pass


@pydantic_input(model=library_payloads.SchemaUpload, all_fields=True)
class SchemaUploadInput:
    pass


@pydantic_input(model=library_payloads.SchemaLink, all_fields=True)
class SchemaLinkInput:
    pass


@pydantic_input(model=library_payloads.ConstraintSetCreate, all_fields=True)
class ConstraintSetCreateInput:
    rules: list[JSON] = strawberry.field(
        default_factory=list, description="Rules: [{path, category, pattern, ...}]"
    )


@pydantic_input(model=library_payloads.ConstraintSetUpdate, all_fields=True)
class ConstraintSetUpdateInput:
    rules: list[JSON] | None = None


class _DatasetCreateGraphQL(dataset_payloads.DatasetCreate):
    """DatasetCreate as GraphQL takes it: `params` may be null, meaning none (as in `preview`).

    Not `JSON! = {}`: graphql-core cannot print an object as a JSON scalar's default literal, so
    introspection of `defaultValue` failed. to_payload still validates with DatasetCreate."""

    params: dict[str, Any] | None = Field(  # type: ignore[assignment]  # nullable here, a dict in DatasetCreate
        default=None,
        description=str(dataset_payloads.DatasetCreate.model_fields["params"].description) + " (null: none)",
    )


@pydantic_input(model=_DatasetCreateGraphQL, all_fields=True)
class DatasetCreateInput:
    params: JSON | None = None


# Input fields whose GraphQL null stands for the payload model's default (see DatasetCreateInput).
_NULL_MEANS_DEFAULT: dict[type[BaseModel], frozenset[str]] = {dataset_payloads.DatasetCreate: frozenset({"params"})}


def to_payload(model: type[M], value: Any) -> M:
    """Validate a GraphQL input object with its payload model (same rules as REST bodies)."""
    data = {name: getattr(value, name) for name in model.model_fields if hasattr(value, name)}
    for name in _NULL_MEANS_DEFAULT.get(model, frozenset()):
        if data.get(name, ...) is None:
            del data[name]
    return parse(model, data)
