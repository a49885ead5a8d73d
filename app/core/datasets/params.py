"""A dataset's params as stored: checked once for creation, previews and coverage plans alike."""

from __future__ import annotations

import secrets
from typing import Any

from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.error_codes import ErrorCode
from app.core.errors import Invalid
from app.core.generation import parse_params, resolve_root
from app.core.library.models import ConstraintSet, SchemaDoc
from app.core.library.repository import ConstraintSetRepository, SchemaRepository
from app.core.principal import Principal
from app.core.schema_cache import load_cached_async
from app.core.settings import Settings
from app.core.storage import store_for


async def checked_params(
    settings: Settings, schema: SchemaDoc, constraint_set: ConstraintSet | None, params: dict[str, Any]
) -> dict[str, Any]:
    """A dataset's params as stored (also what a preview generates with): unknown keys and bad values
    are 422, the constraint set's root is applied, the record root resolved and a missing seed drawn.
    `deferred` is checked and left in for the caller."""
    raw_params = dict(params)
    if constraint_set is not None and constraint_set.root is not None:
        # the rules were validated against the set's root: generate that root, or refuse a clash
        if raw_params.get("root") not in (None, constraint_set.root):
            raise Invalid(
                f"params.root '{raw_params['root']}' differs from the constraint set's root "
                f"'{constraint_set.root}'.",
                code=ErrorCode.ROOT_MISMATCH, field="params.root",
            )
        raw_params["root"] = constraint_set.root
    deferred = raw_params.get("deferred", False)
    if not isinstance(deferred, bool):
        raise Invalid("params.deferred must be true or false.", code=ErrorCode.INVALID_PARAMS, field="params.deferred")
    parsed = parse_params(raw_params)  # unknown keys and bad values -> 422
    if parsed.root is not None:
        loaded = await load_cached_async(store_for(settings), schema.storage_key, schema.filename)
        raw_params["root"] = resolve_root(loaded, parsed.root)
    if parsed.xml_layout == "documents" and schema.type == "xsd":
        _require_global_root(schema, raw_params.get("root"))
    raw_params["seed"] = parsed.seed if "seed" in raw_params else secrets.randbits(63)
    return raw_params


async def schema_and_set(
    session: AsyncSession, principal: Principal, schema_id: int, constraint_set_id: int | None
) -> tuple[SchemaDoc, ConstraintSet | None]:
    """The schema (read access, else 404) and the constraint set a preview or coverage plan names,
    which must belong to that schema."""
    schema = await SchemaRepository(session, principal).get(schema_id)  # read access, else 404
    constraint_set: ConstraintSet | None = None
    if constraint_set_id is not None:
        constraint_set = await ConstraintSetRepository(session, principal).get(constraint_set_id)
        require_same_schema(constraint_set, schema_id)
    return schema, constraint_set


def require_same_schema(constraint_set: ConstraintSet, schema_id: int | None) -> None:
    """A constraint set's rules are written against one schema: 422 when it is another's."""
    if constraint_set.schema_id != schema_id:
        raise Invalid(
            f"Constraint set {constraint_set.id} belongs to schema {constraint_set.schema_id}, "
            f"not to schema {schema_id}.",
            code=ErrorCode.CONSTRAINT_SET_SCHEMA_MISMATCH,
            field="constraint_set_id",
        )


def _require_global_root(schema: SchemaDoc, root: str | None) -> None:
    """params.xml_layout documents: each record is a document of its own, which the XSD allows
    only for a globally declared element (a local one's root is named `parent/child`)."""
    name = root if root is not None else schema.default_root
    if "/" in name:
        parent = name.rsplit("/", 1)[0]
        raise Invalid(
            f"params.xml_layout 'documents' writes each record as a document of its own, which the XSD "
            f"allows only for a globally declared element, and {name!r} is declared inside {parent!r}: "
            f"choose the root {parent!r} (each document then holds one of those), or keep the "
            f"'container' layout.",
            code=ErrorCode.INVALID_PARAMS,
            field="params.xml_layout",
        )
