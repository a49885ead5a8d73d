"""Helpers to run the generator over the third-party schema corpus (tests/corpus/manifest.json)."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import orjson

from app.generation.errors import GenerationError
from app.generation.output_formats import FORMAT_NAMES as FORMATS
from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def manifest() -> list[dict[str, Any]]:
    path = CORPUS / "manifest.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []


def schema_bytes(entry: dict[str, Any]) -> tuple[bytes, str]:
    """The upload for an entry: the file itself, or a zip of all its files for multi-file XSDs."""
    files = entry["files"]
    if len(files) == 1 or entry["type"] == "json_schema":  # JSON uploads are one document
        return (CORPUS / files[0]).read_bytes(), Path(files[0]).name
    root = Path(files[0]).parts[0]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for rel in files:
            zf.write(CORPUS / rel, str(Path(rel).relative_to(root)))
    return buf.getvalue(), Path(files[0]).name + ".zip"


def generate_entry(entry: dict[str, Any], records: int = 100, seed: int = 7) -> tuple[str, str | None]:
    """('ok'|'rejected'|'failed', reason). `rejected`: the loader refused the schema;
    `failed`: generation refused or produced an invalid record (the guard checks every record),
    or the bytes written are not those records (see `written_problem`)."""
    content, name = schema_bytes(entry)
    try:
        loaded = load_schema(content, name)
    except GenerationError as exc:
        return "rejected", exc.detail
    try:
        plan = compile_plan(loaded, [], {"seed": seed}, record_count=records)
        written = {}
        for fmt in FORMATS:
            out = io.BytesIO()
            plan.write(fmt, out, guard=fmt in ("json", "xml"))
            written[fmt] = out.getvalue()
        # the guard samples runs of large records (GUARD_ALL_VALUES): here every record is checked
        for first, col in plan.chunks(0, records):
            plan._check(col, first, set(range(first, first + col.n)), None)
    except GenerationError as exc:
        return "failed", exc.detail
    problem = written_problem(plan.records(), written)
    return ("failed", problem) if problem else ("ok", None)


def written_problem(records: list[Any], written: dict[str, bytes]) -> str | None:
    """Why the written files do not hold `records` (the records the guard validated), or None:
    the JSON array and the NDJSON lines parse back to exactly them, the CSV has a header and one
    well-formed row per record, all of one width."""
    expected = orjson.loads(orjson.dumps(records))
    if orjson.loads(written["json"]) != expected:
        return "the JSON file does not parse back to the generated records"
    if [orjson.loads(line) for line in written["ndjson"].splitlines()] != expected:
        return "the NDJSON file does not parse back to the generated records"
    # a cell may hold a whole repeated element as JSON: pain.002.001.14's pass csv's default limit
    # of 131,072 characters (the 200-record census), which is the reader's limit, not the file's
    csv.field_size_limit(max(csv.field_size_limit(), 1 << 30))
    rows = list(csv.reader(io.StringIO(written["csv"].decode(), newline=""), strict=True))
    if len(rows) != len(records) + 1 or len({len(row) for row in rows}) > 1:
        return f"the CSV file has {len(rows)} rows of widths {sorted({len(r) for r in rows})} for {len(records)} records"
    return None
