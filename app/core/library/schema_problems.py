"""Problems of a schema's record root known before any dataset exists (app/generation/problems.py):
listed with the representation and the upload answer, and a dataset request whose root cannot be
generated is refused. Found once per schema content and root (app/core/schema_cache.py)."""

from __future__ import annotations

from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.error_codes import ErrorCode
from app.core.errors import Invalid
from app.core.library import schemas
from app.core.principal import Principal
from app.core.schema_cache import problems_of
from app.core.settings import Settings
from app.core.storage import store_for

_LISTED = 10
# how a problems list says the record was not checked at upload (too many fields for the probe:
# generation/problems.py; the probe process died: schema_cache.py)
NOT_CHECKED = "not checked before generation"


async def of_schema(
    session: AsyncSession, principal: Principal, settings: Settings, schema_id: int, root: str | None = None
) -> list[dict[str, Any]]:
    """Every path of the root (None: the default) the engine cannot generate, with its reason and
    whether it blocks. The schema is not parsed here: the probe process does it when not cached."""
    doc = await schemas.get(session, principal, schema_id)
    return await problems_of(store_for(settings), doc.storage_key, doc.filename, root)


async def refuse_blocked(
    session: AsyncSession, principal: Principal, settings: Settings, schema_id: int, root: str | None
) -> None:
    """422 naming the paths when no record of `root` (None: the default) can be generated."""
    found = await of_schema(session, principal, settings, schema_id, root)
    blocked = [p for p in found if p["blocking"]]
    if not blocked:
        return
    _, loaded = await schemas.loaded_schema(session, principal, settings, schema_id)  # for the root's name
    raise Invalid(
        f"Schema {schema_id} cannot generate records of root {loaded.resolve_root(root)!r}: "
        f"{_named(blocked)}.",
        errors=[{"field": p["path"], "message": p["reason"], "type": "unsatisfiable"} for p in blocked],
        code=ErrorCode.ROOT_UNSATISFIABLE, field="params.root",
    )


def _named(blocked: list[dict[str, Any]]) -> str:
    """The first blocking paths with their reasons, and how many more there are."""
    named = "; ".join(f"{p['path'] or '(root)'}: {p['reason']}" for p in blocked[:_LISTED])
    return named + (f" (and {len(blocked) - _LISTED} more)" if len(blocked) > _LISTED else "")


def verdict(found: list[dict[str, Any]]) -> tuple[bool | None, str | None]:
    """`(satisfiable, problem)` of the default root, from the problems the probe found at upload
    (`of_schema`): False with the blocking paths and reasons when no record can be generated, True
    otherwise, None when the record was too large to check before a dataset (the reason says so)."""
    blocked = [p for p in found if p["blocking"]]
    if blocked:
        return False, f"No record can be generated: {_named(blocked)}."
    unchecked = [p for p in found if p["reason"].startswith(NOT_CHECKED)]
    if unchecked:
        return None, unchecked[0]["reason"]
    return True, None
