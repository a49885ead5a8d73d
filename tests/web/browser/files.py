"""Checks of downloaded dataset files: every JSON record against its JSON Schema, the CSV row count,
the SQL loaded into SQLite, the XML well-formed (and valid against its XSD when there is one)."""

from __future__ import annotations

import csv
import json
import multiprocessing
import sqlite3
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any
from xml.etree import ElementTree
from xml.parsers import expat

import jsonschema
import xmlschema


def _invalid_records(path: str, schema_path: str, part: int, parts: int) -> list[str]:
    """Errors of every `parts`-th record from `part` (run in a worker process)."""
    records = json.loads(Path(path).read_bytes())
    schema = json.loads(Path(schema_path).read_text())
    cls = jsonschema.validators.validator_for(schema)
    validator = cls(schema, format_checker=cls.FORMAT_CHECKER)
    problems = []
    for i in range(part, len(records), parts):
        if not validator.is_valid(records[i]):
            error = jsonschema.exceptions.best_match(validator.iter_errors(records[i]))
            problems.append(f"record {i}: {error.message} at {list(error.absolute_path)}")
    return problems


class JsonRecordsCheck:
    """Every record of a JSON download valid against its JSON Schema (the schema's own draft, with
    format checking). jsonschema needs about 18 s of one core for 100,000 records, so `workers`
    processes check them while the test goes on; `result()` waits and fails on any invalid record."""

    def __init__(self, path: Path, schema_path: Path, count: int, workers: int = 2) -> None:
        self.name = path.name
        self.records: list[dict[str, Any]] = json.loads(path.read_bytes())
        assert isinstance(self.records, list), f"{path.name}: a JSON array of records was expected"
        assert len(self.records) == count, f"{path.name}: {len(self.records)} records, expected {count}"
        self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
        self.jobs = [self.pool.submit(_invalid_records, str(path), str(schema_path), k, workers)
                     for k in range(workers)]

    def result(self) -> None:
        try:
            problems = [p for job in self.jobs for p in job.result()]
        finally:
            self.pool.shutdown(cancel_futures=True)
        assert not problems, f"{self.name}: {len(problems)} invalid records, e.g. {problems[:3]}"


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
    """Well-formed, with `count` records (the container's children); valid against `xsd` when given."""
    parser = expat.ParserCreate()
    depth = records = 0

    def start(_name: str, _attrs: dict[str, str]) -> None:
        nonlocal depth, records
        depth += 1
        records += depth == 2

    def end(_name: str) -> None:
        nonlocal depth
        depth -= 1

    parser.StartElementHandler, parser.EndElementHandler = start, end
    with path.open("rb") as f:
        parser.ParseFile(f)  # raises ExpatError where the document is not well-formed
    assert records == count, f"{path.name}: {records} records, expected {count}"
    if xsd is not None:
        # a record is the XSD's repeated element; the schema's global element is their container
        root = ElementTree.parse(path).getroot()
        root.tag = container or root.tag
        errors = list(xmlschema.XMLSchema(str(xsd)).iter_errors(root))
        assert not errors, f"{path.name}: {len(errors)} invalid parts, the first: {errors[0].reason} at {errors[0].path}"
