"""Negative test data on datasets (`params.invalid_rate`, `params.invalid_keywords`; issue 30):
the checks at creation and which formats carry them (the count of invalid records a dataset
holds is app/core/jobs/plans.invalid_records, which the worker reads too). The records are broken by the engine (app/generation/negative) in the worker; their labels
are stored as the dataset's `labels` file."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.core.error_codes import ErrorCode
from app.core.errors import Invalid
from app.core.generation import NEGATIVE_FORMATS, NEGATIVE_XSD_FORMATS, in_thread
from app.core.jobs.plans import compile_dataset, rate_of
from app.core.library.models import SchemaDoc
from app.core.settings import Settings


class _Inputs:
    def __init__(self, params: dict[str, Any], rules: list[dict[str, Any]], record_count: int) -> None:
        self.params, self.rules, self.record_count = params, rules, record_count


def suite(params: Mapping[str, Any]) -> bool:
    """params.coverage each with params.invalid_rate 1: the negative suite (one invalid record per
    breakable constraint; app/generation/coverage/suite.py)."""
    return params.get("coverage") == "each" and rate_of(params) == 1


def refuse_format(params: Mapping[str, Any], fmt: str, schema_type: str) -> None:
    """A dataset with invalid records is written only in the formats that carry them (json or
    ndjson for a JSON Schema, xml for an XSD: `schema_type`, SchemaDoc.type): 422 for another
    format (a download that would render one on demand), naming the schema kind's formats."""
    carriers = NEGATIVE_XSD_FORMATS if schema_type == "xsd" else NEGATIVE_FORMATS
    if rate_of(params) and fmt not in carriers:
        raise Invalid(
            f"params.invalid_rate is not available for the {fmt} format: invalid records of this "
            f"schema are written as {' or '.join(carriers)}.",
            code=ErrorCode.INVALID_PARAMS,
            field="format",
        )


async def check(
    settings: Settings,
    schema: SchemaDoc,
    rules: Sequence[Mapping[str, Any]],
    params: dict[str, Any],
    record_count: int,
    formats: Sequence[str],
) -> None:
    """422 at creation, not a failed dataset later: the plan is compiled with its invalid records
    (off the event loop), so the engine refuses an XSD schema, a format that cannot carry them, a
    keyword with nothing breakable (naming it) or a schema with nothing breakable at all."""
    if not rate_of(params):
        return
    inputs = _Inputs(params, [dict(r) for r in rules], record_count)
    plan = await in_thread(
        f"the invalid records of schema {schema.id}",
        compile_dataset, settings, inputs, schema, formats=list(formats),
    )
    if plan.record_count > record_count:  # the negative suite is larger than the dataset
        raise Invalid(
            f"record_count {record_count:,} is below the size of the negative suite: it needs at "
            f"least {plan.record_count:,} records (one per breakable constraint).",
            code=ErrorCode.INVALID_RECORD_COUNT,
            field="record_count",
        )
