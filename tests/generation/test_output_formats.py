"""One list of output formats (issue 29 item 6): app/generation/output_formats.py names each format
with its media type and file extension, and every other module reads it rather than listing the
formats again (the scan below keeps it so, and finds the lists there were: tested on the tree
before the list)."""

from __future__ import annotations

import ast
from pathlib import Path

from app.generation.output_formats import BY_NAME, FORMAT_NAMES, OUTPUT_FORMATS, file_name, spoken

APP = Path(__file__).resolve().parents[2] / "app"
HOME = APP / "generation" / "output_formats.py"


def test_the_list() -> None:
    assert FORMAT_NAMES == ("csv", "json", "xml", "sql", "ndjson")
    assert set(BY_NAME) == set(FORMAT_NAMES) and len(OUTPUT_FORMATS) == len(FORMAT_NAMES)
    assert BY_NAME["csv"].media_type == "text/csv; charset=utf-8" and BY_NAME["csv"].bare_media_type == "text/csv"
    assert BY_NAME["ndjson"].media_type == "application/x-ndjson"
    assert file_name("ndjson", 12) == "data-0012.ndjson" and file_name("sql", 0) == "data-0000.sql"
    assert spoken() == "csv, json, xml, sql or ndjson" and spoken(("csv",)) == "csv"


def _listings(path: Path) -> list[str]:
    """Where a module lists formats itself: a tuple, list, set or dict (keys) of three or more format
    names, or a format's media type written out. One format's own branch (`fmt == "csv"`, which
    formats carry a feature) is not a list."""
    # application/json and application/xml also name request bodies: only the others are telling
    names = set(FORMAT_NAMES)
    media_types = {f.media_type for f in OUTPUT_FORMATS if f.name not in ("json", "xml")}
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None)
        if isinstance(node, ast.Tuple | ast.List | ast.Set | ast.Dict) and items:
            words = {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)}
            if len(words & names) >= 3:
                found.append(ast.unparse(node)[:80])
        elif isinstance(node, ast.Constant) and node.value in media_types:
            found.append(node.value)
    return found


def test_no_other_module_lists_the_formats() -> None:
    """A new list elsewhere would drift from the one list."""
    found = {str(p.relative_to(APP)): hits for p in APP.rglob("*.py") if p != HOME and (hits := _listings(p))}
    assert not found, f"list output formats in app/generation/output_formats.py only: {found}"
