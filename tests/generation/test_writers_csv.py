"""CSV writer: every cell read back by Python's csv module equals the record's value, whatever the
delimiter, quoting need or formula guard; the C assembly and the pure-Python path agree."""

from __future__ import annotations

import csv
import io
import json

import pytest

from app.generation.plan import compile_plan
from app.generation.schema.loader import load_schema
from app.generation.writers import csv as csv_writer
from app.generation.writers import interleave as interleave_mod

TRICKY = ["a,b", 'say "hi"', "line\nbreak", "x\r\ny", "=SUM(A1)", "+1", "-2", "@me", "plain", "ä;ö§",
          "tab\there", "😀", ""]
SCHEMA = {
    "type": "object",
    "required": ["num", "word", "tags", "inner"],
    "additionalProperties": False,
    "properties": {
        "num": {"type": "integer", "minimum": -50, "maximum": 50},
        "word": {"enum": TRICKY},
        "maybe": {"enum": TRICKY},  # optional: absent in some records
        "nullable": {"type": ["string", "null"], "enum": [*TRICKY, None]},
        "price": {"type": "number", "minimum": -5, "maximum": 5, "multipleOf": 0.25},
        "flag": {"type": "boolean"},
        "tags": {"type": "array", "maxItems": 3, "items": {"enum": TRICKY}},
        "inner": {"type": "object", "required": ["city"], "additionalProperties": False,
                  "properties": {"city": {"enum": TRICKY}}},
    },
}
COLUMNS = ["num", "word", "maybe", "nullable", "price", "flag", "tags", "inner.city"]


def _plan(**params):
    loaded = load_schema(json.dumps(SCHEMA).encode(), "tricky.json")
    return compile_plan(loaded, [], {"seed": 11, **params}, record_count=3000)


def _expected_cell(record: dict, column: str, guard: bool) -> str:
    value: object = record
    for part in column.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if value is None:
        return ""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, list):
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    else:
        text = str(value) if not isinstance(value, str) else value
    if guard and isinstance(record_value := value, str) and record_value.startswith(("=", "+", "-", "@", "\t", "\r")):
        text = "'" + text
    return text


def _read(data: bytes, delimiter: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode(), newline=""), delimiter=delimiter, strict=True))


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|", "§"])
def test_cells_read_back_equal_the_records(delimiter: str) -> None:
    plan = _plan(csv_delimiter=delimiter)
    out = io.BytesIO()
    plan.write("csv", out)
    rows = _read(out.getvalue(), delimiter)
    assert rows[0] == COLUMNS
    records = plan.records()
    assert len(rows) == len(records) + 1
    for record, row in zip(records, rows[1:], strict=True):
        got = dict(zip(COLUMNS, row, strict=True))
        for column in COLUMNS:
            if column == "price" and got[column]:
                assert float(got[column]) == record.get("price")
            elif column == "tags":
                assert json.loads(got[column]) == record["tags"]
            else:
                assert got[column] == _expected_cell(record, column, guard=False), (column, record)
    # every quoting need occurred: the test would not notice a writer that never quotes otherwise
    text = out.getvalue().decode()
    assert '"say ""hi"""' in text and '"line\nbreak"' in text and '"x\r\ny"' in text


def test_formula_guard_prefixes_text_cells_only() -> None:
    plan = _plan(csv_formula_guard=True)
    out = io.BytesIO()
    plan.write("csv", out)
    rows = _read(out.getvalue(), ",")
    for record, row in zip(plan.records(), rows[1:], strict=True):
        got = dict(zip(COLUMNS, row, strict=True))
        assert got["word"] == _expected_cell(record, "word", guard=True)
        assert got["inner.city"] == _expected_cell(record, "inner.city", guard=True)
        assert int(got["num"]) == record["num"]  # a negative number is a number, not a formula


@pytest.mark.parametrize("delimiter", [",", "\t", "§"])
def test_native_and_python_assembly_write_the_same_bytes(monkeypatch: pytest.MonkeyPatch, delimiter: str) -> None:
    if not interleave_mod.NATIVE:
        pytest.skip("the C extension is not built here")
    plan = _plan(csv_delimiter=delimiter)
    native = io.BytesIO()
    plan.write("csv", native)
    monkeypatch.setattr(csv_writer, "interleave", interleave_mod._interleave_py)
    python = io.BytesIO()
    plan.write("csv", python)
    assert native.getvalue() == python.getvalue()


def test_one_column_keeps_a_row_for_every_record() -> None:
    """An empty only cell would be an empty line, which csv readers skip: it is written `""`."""
    schema = {"type": "object", "properties": {"note": {"type": ["string", "null"], "enum": ["", "a,b", None, "x"]}}}
    plan = compile_plan(load_schema(json.dumps(schema).encode(), "one.json"), [], {"seed": 5}, record_count=400)
    out = io.BytesIO()
    plan.write("csv", out)
    rows = _read(out.getvalue(), ",")
    records = plan.records()
    assert len(rows) == len(records) + 1 and all(len(r) == 1 for r in rows)
    assert [r[0] for r in rows[1:]] == [rec.get("note") or "" for rec in records]
    assert b'\r\n""\r\n' in out.getvalue() and b'"a,b"' in out.getvalue()
