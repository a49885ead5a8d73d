"""What a client sends to create a dataset."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from app.core.payloads import FormatName, Id, Integer, Name, Strict, documented
from app.generation.output_formats import FORMAT_NAMES


class DatasetCreate(Strict):
    name: Name
    project_id: Id
    schema_id: Id
    record_count: Integer = Field(
        ge=1,
        le=1_000_000_000,
        description="Records to generate: 1 to the tenant's max_record_count "
        "(at most the deployment's limit); more is refused",
    )
    constraint_set_id: Id | None = None
    types: Annotated[list[FormatName], Field(max_length=5), documented(minItems=1)] | None = Field(
        default=None,
        description=f"Formats to pre-generate: {', '.join(FORMAT_NAMES)} (others render on download)",
    )
    params: dict[str, Any] = Field(
        default_factory=dict,
        description="seed, locale (e.g. de_DE: names, addresses, postcodes, phone formats), locales "
        "(a list: each record's locale and country drawn from it), root, records_per_file, null_rate, "
        "sql_dialect, table_name, csv_delimiter, csv_formula_guard, deferred, xml_layout (container | "
        "documents: the XML download is a zip, one document per record), coverage (each | pairwise: the "
        "first records are the coverage set), invalid_rate (0 to 1: that share of the records break one "
        "constraint each, labelled; download format=labels), invalid_keywords (the keywords they may break)",
    )
