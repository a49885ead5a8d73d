"""Coverage sets of datasets (DESIGN §8a, `params.coverage`): the set a dataset's inputs give, its
size checked against the record count at creation, and its report (targets and where each is met)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from pydantic import Field
from sqlmodel.ext.asyncio.session import AsyncSession

from app.core.datasets import negative
from app.core.datasets.params import checked_params, schema_and_set
from app.core.error_codes import ErrorCode
from app.core.errors import Invalid
from app.core.library.models import SchemaDoc
from app.core.payloads import Id, Strict
from app.core.principal import Principal
from app.core.schema_probe import coverage_report, probe_pool
from app.core.settings import Settings
from app.core.storage import store_for

# beyond the build's own deadline: loading the schema and compiling its generators in the probe
# process (a fresh one is spawned first); the engine stops itself at the deadline
_GRACE_SECONDS = 20.0


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
) -> dict[str, Any]:
    """The report of the coverage set of these inputs (mode, records, total, covered, targets),
    built in a probe process (app/core/schema_probe.py), never in this one, within
    settings.coverage_seconds: past it, or past the engine's bounds on targets and records, 422
    coverage_too_large; a request never waits longer than the deadline and a grace."""
    raw = await asyncio.to_thread(store_for(settings).get_blob, schema.storage_key)
    seconds = settings.coverage_seconds
    future = probe_pool().submit(
        coverage_report, raw, schema.filename, [dict(r) for r in rules], dict(params), mode, record_count, seconds
    )
    try:
        report, refusal = await asyncio.wait_for(asyncio.wrap_future(future), seconds + _GRACE_SECONDS)
    except TimeoutError:
        raise Invalid(
            f"The {mode} coverage set of this schema was not built within {seconds:g} s, the limit of a "
            "request. Use mode each, or narrow the schema with a constraint set.",
            code=ErrorCode.COVERAGE_TOO_LARGE,
            field="params.coverage",
        ) from None
    except BrokenProcessPool:
        raise Invalid(
            f"The process building the {mode} coverage set of this schema ended before it was done "
            "(out of memory?). Use mode each, or narrow the schema with a constraint set.",
            code=ErrorCode.GENERATION_FAILED,
            field="params.coverage",
        ) from None
    if refusal is not None:
        detail, code, field = refusal
        raise Invalid(detail, code=ErrorCode(code), field=field)
    assert report is not None
    return dict(report)


async def check_record_count(
    settings: Settings,
    schema: SchemaDoc,
    rules: Sequence[Mapping[str, Any]],
    params: Mapping[str, Any],
    record_count: int,
) -> None:
    """422 naming the size needed when `params.coverage` asks for a set larger than the dataset."""
    mode = params.get("coverage")
    if mode is None or negative.suite(params):
        return  # the negative suite's size is checked with its invalid records (negative.check)
    report = await coverage_of(settings, schema, rules, params, str(mode), record_count)
    if report["records"] > record_count:
        raise Invalid(
            f"record_count {record_count:,} is below the size of the {mode} coverage set: it needs "
            f"at least {report['records']:,} records.",
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
    report = await coverage_of(settings, schema, rules, stored, mode, record_count)
    return {**report, "seed": str(stored["seed"])}


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
