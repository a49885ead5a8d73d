"""Coverage sets of datasets (DESIGN §8a, `params.coverage`): the set a dataset's inputs give, its
size checked against the record count at creation, and its report (targets and where each is met)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import Field
from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.datasets.params import checked_params, schema_and_set
from app.core.error_codes import ErrorCode
from app.core.errors import Invalid
from app.core.generation import coverage_set, in_thread
from app.core.library.models import SchemaDoc
from app.core.payloads import Id, Strict
from app.core.principal import Principal
from app.core.schema_cache import load_cached_async
from app.core.settings import Settings
from app.core.storage import store_for

if TYPE_CHECKING:
    from app.generation.coverage.sets import CoverageSet


class CoveragePlanRequest(Strict):
    """The REST body of POST /schemas/{schema_id}/coverage-plan."""

    constraint_set_id: Id | None = None
    mode: str = Field(default="each", json_schema_extra={"enum": ["each", "pairwise"]})
    params: dict[str, Any] | None = Field(
        default=None,
        description="As for a dataset: seed, locale, root, ... (coverage is `mode`); and `record_count`, "
        "the dataset's record count (default 1): unique fields draw from pools sized by it, so the "
        "plan is the set of a dataset of that many records",
    )


async def coverage_of(
    settings: Settings,
    schema: SchemaDoc,
    rules: Sequence[Mapping[str, Any]],
    params: Mapping[str, Any],
    mode: str,
    record_count: int = 1,
) -> CoverageSet:
    """The coverage set of these inputs (built off the event loop: it draws and validates records)."""
    loaded = await load_cached_async(store_for(settings), schema.storage_key, schema.filename)
    return await in_thread(
        f"the coverage set of schema {schema.id}",
        coverage_set, lambda: loaded, rules, params, mode=mode, record_count=record_count,
    )


async def check_record_count(
    settings: Settings,
    schema: SchemaDoc,
    rules: Sequence[Mapping[str, Any]],
    params: Mapping[str, Any],
    record_count: int,
) -> None:
    """422 naming the size needed when `params.coverage` asks for a set larger than the dataset."""
    mode = params.get("coverage")
    if mode is None:
        return
    cover = await coverage_of(settings, schema, rules, params, str(mode), record_count)
    if cover.size > record_count:
        raise Invalid(
            f"record_count {record_count:,} is below the size of the {mode} coverage set: it needs "
            f"at least {cover.size:,} records.",
            code=ErrorCode.INVALID_RECORD_COUNT,
            field="record_count",
        )


async def plan(
    session: AsyncSession,
    principal: Principal,
    settings: Settings,
    schema_id: int,
    *,
    constraint_set_id: int | None,
    mode: str,
    params: Any = None,
) -> dict[str, Any]:
    """The coverage set a dataset of this schema, constraint set and params would start with,
    before creating it: its report (mode, records, total, covered, targets) and the seed it was
    drawn with (pass it in params to create the same set)."""
    schema, constraint_set = await schema_and_set(session, principal, schema_id, constraint_set_id)
    if mode not in ("each", "pairwise"):
        raise Invalid("mode must be each or pairwise.", code=ErrorCode.INVALID_PARAMS, field="mode")
    if params is not None and not isinstance(params, dict):
        raise Invalid("params must be a JSON object.", code=ErrorCode.INVALID_PARAMS, field="params")
    given = dict(params or {})
    record_count = _plan_record_count(given.pop("record_count", 1))
    stored = await checked_params(settings, schema, constraint_set, {**given, "coverage": mode})
    stored.pop("deferred", None)
    rules = list(constraint_set.rules) if constraint_set else []
    cover = await coverage_of(settings, schema, rules, stored, mode, record_count)
    return {**cover.report(), "seed": str(stored["seed"])}


def _plan_record_count(raw: Any) -> int:
    """params.record_count of a coverage plan (not a dataset param: the dataset's own record_count,
    carried in params so the GraphQL field keeps its arguments)."""
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
        raise Invalid(
            "params.record_count must be a whole number of at least 1 (the dataset's record_count).",
            code=ErrorCode.INVALID_RECORD_COUNT,
            field="params.record_count",
        )
    return raw
