"""The memory bound the README states for a field at MAX_FIELD_CHARS: one block of 4,096 records
of the costliest kind (a pattern of exactly the limit) stays under it, and so do patterns that
allow far longer values (drawn within the limit). Each runs `tdg generate` in a fresh process that
reports its own peak RSS, so nothing this test process holds is counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.generation.limits import MAX_FIELD_CHARS
from tests.support.peak_memory import tdg_peak_mib

# README (Interface decisions, Schema limits): 0.39 GB measured for the costliest field at the
# limit; the bound checked leaves room for allocator and import differences, not for a regression
# to a field's value of millions of characters (2.6 GB for three records before)
PEAK_BOUND_MB = 600


def _string_field(spec: dict[str, object]) -> dict[str, object]:
    return {"type": "object", "required": ["a"], "properties": {"a": {"type": "string", **spec}}}


@pytest.mark.parametrize("spec", [
    {"pattern": f"^[a-z]{{{MAX_FIELD_CHARS}}}$"},
    {"pattern": "^((a{0,1000}){0,1000}){0,1000}$"},
    {"pattern": "^([A-Za-z0-9_-]{1,63}\\.){1,126}[A-Za-z]{2,63}$"},
    {"pattern": "^[a-z]*$", "minLength": MAX_FIELD_CHARS - 100, "maxLength": 10**9},
], ids=["pattern-at-limit", "nested-repeats", "hostname", "open-pattern-wide-window"])
def test_a_block_at_the_limit_stays_within_the_documented_memory(tmp_path: Path, spec: dict[str, object]) -> None:
    schema = tmp_path / "s.json"
    schema.write_text(json.dumps(_string_field(spec)))
    out = tmp_path / "out.json"
    peak_mb = tdg_peak_mib(["generate", str(schema), "-n", "4096", "-f", "json", "-o", str(out), "--seed", "1"])
    assert peak_mb < PEAK_BOUND_MB, f"{spec}: peak {peak_mb:.0f} MB"
    values = [record["a"] for record in json.loads(out.read_text())]
    assert len(values) == 4096 and max(map(len, values)) <= MAX_FIELD_CHARS
