"""One compilation, many plans (issue 20): what `compile_generators` builds serves any seed and
locale through `plan_of`, and a plan reuses its fail-fast probe's block when that block is its
own (a dataset of at most 64 records, a preview). Neither changes a byte."""

from __future__ import annotations

import io

import pytest

from app.generation.output_formats import FORMAT_NAMES as FORMATS
from app.generation.params import parse_params
from app.generation.plan import Plan, compile_generators, compile_plan, plan_of
from app.generation.schema.loader import load_schema
from tests.paths import BENCH

SCHEMAS = [
    ("customer_order.schema.json", "customer_order.schema.json"),
    ("customer_order.xsd", "customer_order.xsd"),
]


def _all_formats(plan: Plan) -> dict[str, bytes]:
    out = {}
    for fmt in FORMATS:
        stream = io.BytesIO()
        plan.write(fmt, stream)
        out[fmt] = stream.getvalue()
    return out


@pytest.mark.parametrize(("name", "filename"), SCHEMAS)
@pytest.mark.parametrize("count", [1, 10, 64, 65, 300])
def test_a_plan_drawing_its_first_block_afresh_writes_the_same_bytes(
    name: str, filename: str, count: int
) -> None:
    loaded = load_schema((BENCH / name).read_bytes(), filename)
    params = {"seed": 7, "null_rate": 0.2}
    kept = compile_plan(loaded, [], params, record_count=count)
    fresh = compile_plan(loaded, [], params, record_count=count)
    fresh._cache = None  # whatever the probe left: block 0 drawn again while writing
    assert (kept._cache is not None) == (count <= 64)
    assert _all_formats(kept) == _all_formats(fresh)


@pytest.mark.parametrize(("name", "filename"), SCHEMAS)
def test_one_compilation_serves_every_seed_and_locale(name: str, filename: str) -> None:
    loaded = load_schema((BENCH / name).read_bytes(), filename)
    compiled = compile_generators(loaded, [], parse_params({"seed": 0}), record_count=300)
    for raw in (
        {"seed": 1},
        {"seed": 2, "locale": "de_DE"},
        {"seed": 3, "locales": ["fr_FR", "ja_JP"]},
        {"seed": 1},
    ):
        shared = plan_of(compiled, parse_params(raw))
        alone = compile_plan(load_schema((BENCH / name).read_bytes(), filename), [], raw, record_count=300)
        assert shared.gen is compiled.gen and alone.gen is not compiled.gen
        assert _all_formats(shared) == _all_formats(alone), raw
