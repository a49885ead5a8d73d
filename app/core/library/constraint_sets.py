"""Constraint sets: rules validated against the schema's field model on every write."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.authz import Action, require, require_owner_or
from app.core.error_codes import ErrorCode
from app.core.errors import Conflict, Invalid, NotFound
from app.core.generation import field_tree, parse_rules
from app.core.library.models import ConstraintSet
from app.core.library.payloads import ConstraintSetCreate, ConstraintSetUpdate
from app.core.library.repository import ConstraintSetRepository, SchemaRepository
from app.core.library.schemas import loaded_schema
from app.core.models import utcnow
from app.core.principal import Principal
from app.core.services import audit
from app.core.settings import Settings
from app.generation.rule_keys import describe_rule_keys


async def _validated_rules(
    session: AsyncSession,
    principal: Principal,
    settings: Settings,
    schema_id: int,
    root: str | None,
    rules: list[dict[str, Any]],
) -> None:
    try:
        _, loaded = await loaded_schema(session, principal, settings, schema_id)
    except NotFound:
        raise NotFound(f"Schema {schema_id} does not exist in this tenant.", code=ErrorCode.SCHEMA_NOT_FOUND, field="schema_id") from None
    tree = await asyncio.to_thread(field_tree, loaded, root)
    parse_rules(tree, rules)


async def create(
    session: AsyncSession, principal: Principal, settings: Settings, data: ConstraintSetCreate
) -> ConstraintSet:
    require(principal, Action.CONSTRAINT_CREATE)
    await _validated_rules(session, principal, settings, data.schema_id, data.root, data.rules)
    schema = await SchemaRepository(session, principal).get(data.schema_id)
    row = ConstraintSet(
        tenant_id=schema.tenant_id,
        schema_id=data.schema_id,
        name=data.name,
        description=data.description,
        root=data.root,
        rules=data.rules,
        created_by=principal.user_id,
    )
    session.add(row)
    await session.flush()
    audit.record(
        session,
        principal,
        "constraint_set.create",
        target_type="constraint_set",
        target_id=row.id,
        tenant_id=row.tenant_id,
        details={"name": row.name, "schema_id": row.schema_id, "rules": len(row.rules)},
    )
    return row


async def get(session: AsyncSession, principal: Principal, constraint_id: int) -> ConstraintSet:
    return await ConstraintSetRepository(session, principal).get(constraint_id)


async def list_visible(
    session: AsyncSession, principal: Principal, *, schema_id: int | None, limit: int, offset: int
) -> tuple[list[ConstraintSet], int]:
    return await ConstraintSetRepository(session, principal).list(
        schema_id=schema_id, limit=limit, offset=offset
    )


async def update(
    session: AsyncSession,
    principal: Principal,
    settings: Settings,
    constraint_id: int,
    data: ConstraintSetUpdate,
) -> ConstraintSet:
    row = await ConstraintSetRepository(session, principal).get(constraint_id)
    require_owner_or(principal, row.created_by, Action.CONSTRAINT_CHANGE_ANY)
    fields = data.model_dump(exclude_unset=True, exclude_none=True)
    if not fields:
        raise Invalid("Nothing to update: send at least one of name, description, root, rules.", code=ErrorCode.NOTHING_TO_UPDATE)
    root = fields.get("root", row.root)
    rules = fields.get("rules", row.rules)
    if "rules" in fields or "root" in fields:
        await _validated_rules(session, principal, settings, row.schema_id, root, rules)
    for key, value in fields.items():
        setattr(row, key, value)
    row.updated_at = utcnow()
    audit.record(
        session,
        principal,
        "constraint_set.update",
        target_type="constraint_set",
        target_id=row.id,
        tenant_id=row.tenant_id,
        details={"fields": sorted(fields)},
    )
    await session.flush()
    return row


async def delete(session: AsyncSession, principal: Principal, constraint_id: int) -> ConstraintSet:
    repo = ConstraintSetRepository(session, principal)
    row = await repo.get(constraint_id)
    require_owner_or(principal, row.created_by, Action.CONSTRAINT_CHANGE_ANY)
    used = await repo.dataset_count(constraint_id)
    if used:
        raise Conflict(f"Constraint set {constraint_id} is used by {used} dataset(s); delete those first.", code=ErrorCode.CONSTRAINT_SET_IN_USE)
    await session.delete(row)
    audit.record(
        session,
        principal,
        "constraint_set.delete",
        target_type="constraint_set",
        target_id=constraint_id,
        tenant_id=row.tenant_id,
        details={"name": row.name},
    )
    return row


def categories() -> list[dict[str, Any]]:
    # imported on first use: the category generators load Faker's locale data at import
    from app.generation.values.categories import CATEGORIES

    return [
        {
            "name": c.name,
            "description": c.description,
            "types": sorted(k.value for k in c.kinds),
            "example": c.example,
        }
        for c in sorted(CATEGORIES.values(), key=lambda c: c.name)
    ]


def rule_keys() -> list[dict[str, Any]]:
    """Every key a rule takes, from the rule model's own table (app/generation/rule_keys.py)."""
    return describe_rule_keys()
