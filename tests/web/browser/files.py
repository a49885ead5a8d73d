"""Checks of downloaded dataset files: every JSON record against its JSON Schema, the CSV row count,
the SQL loaded into SQLite, the XML well-formed (and valid against its XSD when there is one)."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import jsonschema
import xmlschema


def check_json(path: Path, schema_path: Path, count: int) -> list[dict[str, Any]]:
    records = json.loads(path.read_bytes())
    assert isinstance(records, list), f"{path.name}: a JSON array of records was expected"
    assert len(records) == count, f"{path.name}: {len(records)} records, expected {count}"
    schema = json.loads(schema_path.read_text())
    cls = jsonschema.validators.validator_for(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    for i, record in enumerate(records):
        error = jsonschema.exceptions.best_match(validator.iter_errors(record))
        assert error is None, f"{path.name}: record {i} is invalid: {error.message} at {list(error.absolute_path)}"
    return records


def check_csv(path: Path, count: int) -> list[str]:
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = 0
        for row in reader:
            assert len(row) == len(header), f"{path.name}: row {rows + 1} has {len(row)} cells, header {len(header)}"
            rows += 1
    assert rows == count, f"{path.name}: {rows} rows, expected {count}"
    return header


def check_sql(path: Path, count: int, table: str = "records") -> None:
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(path.read_text(encoding="utf-8"))
        (rows,) = db.execute(f'SELECT count(*) FROM "{table}"').fetchone()
    finally:
        db.close()
    assert rows == count, f"{path.name}: {rows} rows in {table}, expected {count}"


def check_xml(path: Path, count: int, xsd: Path | None = None, container: str | None = None) -> None:
    records = 0
    depth = 0
    for event, _element in ElementTree.iterparse(path, events=("start", "end")):
        depth += 1 if event == "start" else -1
        if event == "start" and depth == 2:
            records += 1
    assert records == count, f"{path.name}: {records} records, expected {count}"
    if xsd is not None:
        # a record is the XSD's repeated element; the schema's global element is their container
        root = ElementTree.parse(path).getroot()
        root.tag = container or root.tag
        errors = list(xmlschema.XMLSchema(str(xsd)).iter_errors(root))
        assert not errors, f"{path.name}: {len(errors)} invalid parts, the first: {errors[0].reason} at {errors[0].path}"
