"""Coverage sets of datasets (DESIGN §8a, `params.coverage`): the set a dataset's inputs give, its
size checked against the record count at creation, and its report (targets and where each is met)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from app.core.error_codes import ErrorCode
from app.core.errors import Invalid
from app.core.models import SchemaDoc
from app.core.schema_cache import load_cached_async
from app.core.settings import Settings
from app.core.storage import store_for

if TYPE_CHECKING:
    from app.generation.coverage.sets import CoverageSet


async def coverage_of(
    settings: Settings,
    schema: SchemaDoc,
    rules: Sequence[Mapping[str, Any]],
    params: Mapping[str, Any],
    mode: str,
    record_count: int = 1,
) -> CoverageSet:
    """The coverage set of these inputs (built off the event loop: it draws and validates records)."""
    from app.core.generation import coverage_set

    loaded = await load_cached_async(store_for(settings), schema.storage_key, schema.filename)
    return await asyncio.to_thread(
        coverage_set, lambda: loaded, rules, params, mode=mode, record_count=record_count
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
