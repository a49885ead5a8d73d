"""Helpers to run the generator over the third-party schema corpus (tests/corpus/manifest.json)."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

from app.core.errors import DomainError
from app.generation.engine import FORMATS, compile_plan
from app.generation.schema_loader import load_schema

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
    `failed`: generation refused or produced an invalid record (the guard checks every record)."""
    content, name = schema_bytes(entry)
    try:
        loaded = load_schema(content, name)
    except DomainError as exc:
        return "rejected", exc.detail
    try:
        plan = compile_plan(loaded, [], {"seed": seed}, record_count=records)
        for fmt in FORMATS:
            plan.write(fmt, io.BytesIO(), guard=fmt in ("json", "xml"))
    except DomainError as exc:
        return "failed", exc.detail
    return "ok", None
