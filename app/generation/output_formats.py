"""The output formats: the one list that the engine's plan and the CLI, the service's payloads,
previews, downloads, exports and jobs, the REST table and the OpenAPI document all read. It lives in
the engine, which imports nothing of the service, so both sides may import it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class OutputFormat:
    name: str
    media_type: str  # the Content-Type of a file of this format (with its charset where it has one)
    extension: str  # of the files written, without the dot
    content: str  # what a file holds, in a few words (the OpenAPI document's description)

    @property
    def bare_media_type(self) -> str:
        """The media type without parameters (`text/csv`), as OpenAPI's content keys name it."""
        return self.media_type.split(";")[0]


OUTPUT_FORMATS: tuple[OutputFormat, ...] = (
    OutputFormat("csv", "text/csv; charset=utf-8", "csv", "A header row, then one row per record"),
    OutputFormat("json", "application/json", "json", "The records, as one JSON array"),
    OutputFormat("xml", "application/xml", "xml", "An XML document with one element per record"),
    OutputFormat("sql", "application/sql", "sql", "INSERT statements, one per record"),
    OutputFormat("ndjson", "application/x-ndjson", "ndjson", "One JSON record per line"),
)
FORMAT_NAMES: tuple[str, ...] = tuple(f.name for f in OUTPUT_FORMATS)
BY_NAME: dict[str, OutputFormat] = {f.name: f for f in OUTPUT_FORMATS}


def spoken(names: tuple[str, ...] = FORMAT_NAMES) -> str:
    """The names as a sentence says them: `csv, json, xml, sql or ndjson`."""
    return f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else "".join(names)


def file_name(fmt: str, file_index: int) -> str:
    """The name of a dataset's `file_index`-th file of format `fmt`: `data-0000.csv`."""
    return f"data-{file_index:04d}.{BY_NAME[fmt].extension}"
