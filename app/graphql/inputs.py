"""GraphQL input types, derived from the service-layer payload models (one definition)."""

from __future__ import annotations

from typing import Any, TypeVar

import strawberry
from pydantic import BaseModel
from strawberry.experimental.pydantic import input as pydantic_input
from strawberry.scalars import JSON

from app.core import payloads
from app.core.validation import parse
from app.graphql.types import common as _enums  # noqa: F401  (registers Role/ProjectRole once, with descriptions)

M = TypeVar("M", bound=BaseModel)


@pydantic_input(model=payloads.ProjectCreate, all_fields=True)
class ProjectCreateInput:
    pass


@pydantic_input(model=payloads.ProjectUpdate, all_fields=True)
class ProjectUpdateInput:
    pass


@pydantic_input(model=payloads.MemberAdd, all_fields=True)
class MemberAddInput:
    pass


@pydantic_input(model=payloads.MemberRemove, all_fields=True)
class MemberRemoveInput:
    pass


@pydantic_input(model=payloads.UserCreate, all_fields=True)
class UserCreateInput:
    pass


@pydantic_input(model=payloads.UserInvite, all_fields=True)
class UserInviteInput:
    pass


@pydantic_input(model=payloads.UserUpdate, all_fields=True)
class UserUpdateInput:
    pass


@pydantic_input(model=payloads.SetupPassword, all_fields=True)
class SetupPasswordInput:
    pass


@pydantic_input(model=payloads.TenantCreate, all_fields=True)
class TenantCreateInput:
    pass


@pydantic_input(model=payloads.TenantUpdate, all_fields=True)
class TenantUpdateInput:
    pass


@pydantic_input(model=payloads.ApiTokenCreate, all_fields=True)
class ApiTokenCreateInput:
    pass


@pydantic_input(model=payloads.SchemaUpload, all_fields=True)
class SchemaUploadInput:
    pass


@pydantic_input(model=payloads.SchemaLink, all_fields=True)
class SchemaLinkInput:
    pass


@pydantic_input(model=payloads.ConstraintSetCreate, all_fields=True)
class ConstraintSetCreateInput:
    rules: list[JSON] = strawberry.field(
        default_factory=list, description="Rules: [{path, category, pattern, ...}]"
    )


@pydantic_input(model=payloads.ConstraintSetUpdate, all_fields=True)
class ConstraintSetUpdateInput:
    rules: list[JSON] | None = None


@pydantic_input(model=payloads.DatasetCreate, all_fields=True)
class DatasetCreateInput:
    params: JSON = strawberry.field(default_factory=dict, description="Generation parameters (DESIGN §5)")


def to_payload(model: type[M], value: Any) -> M:
    """Validate a GraphQL input object with its payload model (same rules as REST bodies)."""
    data = {name: getattr(value, name) for name in model.model_fields if hasattr(value, name)}
    return parse(model, data)
