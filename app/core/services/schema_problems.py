"""Problems of a schema's record root known before any dataset exists (app/generation/problems.py):
listed with the representation, and a dataset request whose root cannot be generated is refused."""

from __future__ import annotations

import asyncio
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.errors import Invalid
from app.core.generation import blocking_problems, root_problems
from app.core.principal import Principal
from app.core.services import schemas
from app.core.settings import Settings
from app.generation.schema.loader import LoadedSchema

_LISTED = 10


async def of_root(loaded: LoadedSchema, root: str | None) -> list[dict[str, Any]]:
    """Every path of the root the engine cannot generate, with its reason and whether it blocks."""
    return await asyncio.to_thread(root_problems, loaded, root)


async def of_schema(
    session: AsyncSession, principal: Principal, settings: Settings, schema_id: int
) -> list[dict[str, Any]]:
    """`of_root` for the schema's default root."""
    _doc, loaded = await schemas.loaded_schema(session, principal, settings, schema_id)
    return await of_root(loaded, None)


async def refuse_blocked(
    session: AsyncSession, principal: Principal, settings: Settings, schema_id: int, root: str | None
) -> None:
    """422 naming the paths when no record of `root` (None: the default) can be generated."""
    _doc, loaded = await schemas.loaded_schema(session, principal, settings, schema_id)
    blocked = await asyncio.to_thread(blocking_problems, loaded, root)
    if not blocked:
        return
    named = "; ".join(f"{p['path'] or '(root)'}: {p['reason']}" for p in blocked[:_LISTED])
    more = f" (and {len(blocked) - _LISTED} more)" if len(blocked) > _LISTED else ""
    raise Invalid(
        f"Schema {schema_id} cannot generate records of root {loaded.resolve_root(root)!r}: {named}{more}.",
        errors=[{"field": p["path"], "message": p["reason"], "type": "unsatisfiable"} for p in blocked],
    )
