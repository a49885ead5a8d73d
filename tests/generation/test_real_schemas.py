"""Real schemas in flat memory (issue 34): records of an ISO 20022 message (~40 KB of XML each,
~13,000 values drawn before the record budget) are drawn in sub-blocks, so `tdg generate` stays
under 300 MiB whatever the count, every record validates with xmlschema, and the bytes do not
depend on where a range is cut. A memory bound, never a timing."""

from __future__ import annotations

import io
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import xmlschema

from app.generation.plan import BLOCK_SIZE, compile_plan, sub_block_size
from app.generation.schema.files import load_schema_path
from tests.paths import BENCH
from tests.support.peak_memory import tdg_peak_mib

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
ISO = CORPUS / "xsd" / "iso20022-pain.001.001.09.xsd"
TDG = Path(sys.executable).with_name("tdg")
RSS_LIMIT_MIB = 300
RECORDS = 300  # two sub-blocks (256 + 44); the old single block of 4,096 records passed 700 MiB at 200


def test_iso_message_generates_in_bounded_memory_and_validates(tmp_path: Path) -> None:
    out = tmp_path / "pain.xml"
    peak_mib = tdg_peak_mib(["generate", str(ISO), "-n", str(RECORDS), "-f", "xml", "-o", str(out), "--seed", "11"])
    assert peak_mib < RSS_LIMIT_MIB, f"tdg generate peaked at {peak_mib:.0f} MiB"

    schema = xmlschema.XMLSchema10(str(ISO))
    document = schema.elements["Document"]
    records = list(ET.parse(out).getroot())
    assert len(records) == RECORDS
    assert out.stat().st_size > RECORDS * 10_000  # large records, not empty shells
    for i, record in enumerate(records):
        errors = list(document.iter_errors(record))
        assert not errors, f"record {i + 1}: {errors[0]}"


def test_sub_blocks_keep_bytes_independent_of_the_cut() -> None:
    loaded = load_schema_path(ISO)
    size = compile_plan(loaded, [], {"seed": 5}, record_count=1).block_size
    assert size < BLOCK_SIZE and BLOCK_SIZE % size == 0  # a power of two below a block
    n, cut = size + 40, size + 7  # the cut falls inside the second sub-block
    whole = io.BytesIO()
    compile_plan(loaded, [], {"seed": 5}, record_count=n).write("xml", whole)
    parts = io.BytesIO()
    again = compile_plan(loaded, [], {"seed": 5}, record_count=n)
    again.write("xml", parts, 0, cut, footer=False)
    again.write("xml", parts, cut, n, header=False)
    assert parts.getvalue() == whole.getvalue()


def test_ordinary_records_keep_whole_blocks() -> None:
    plan = compile_plan(
        load_schema_path(BENCH / "customer_order.schema.json"), [], {"seed": 1}, record_count=10
    )
    assert plan.block_size == BLOCK_SIZE == sub_block_size(plan.gen)
    assert not np.isnan(plan.record_values)
