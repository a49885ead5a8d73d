"""Coverage sets (DESIGN §8a): the first records of a run meet every target read off the schema
(each enum value, both booleans, each branch and if/then/else outcome, each optional part present
and absent, null and not, each bound exactly; `pairwise`: every pair of finite-domain values),
in the fewest valid records found; then random valid records. See sets.py and targets.py."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.generation.coverage.items import widen
from app.generation.coverage.sets import MODES, CoverageBuilder, CoverageSet
from app.generation.errors import ParamsError
from app.generation.params import GenerationParams, parse_params
from app.generation.plan import Plan, compile_generators, plan_of

__all__ = ["MODES", "CoverageSet", "compile_coverage", "coverage_mode"]


def coverage_mode(raw: Any) -> str | None:
    """params.coverage / --coverage checked: None, or one of MODES."""
    if raw is None:
        return None
    if raw not in MODES:
        raise ParamsError(f"coverage must be one of {', '.join(MODES)}.", field="params.coverage")
    return str(raw)


def compile_coverage(
    source: Any,
    rules: Sequence[Any] = (),
    params: Mapping[str, Any] | GenerationParams | None = None,
    *,
    mode: str,
    record_count: int,
    validator: Any = None,
    use_schema_validator: bool = True,
    seconds: float | None = None,
) -> tuple[Plan, CoverageSet]:
    """A Plan of max(record_count, set size) records whose first `set.size` records are the
    coverage set (its generators carry the set's pins), and the set with its report. `seconds`:
    the time the set may take to build (CoverageTooLarge past it; None: no deadline)."""
    coverage_mode(mode)
    p = params if isinstance(params, GenerationParams) else parse_params(params)
    # a tree of its own: the pins are set on its generators
    compiled = compile_generators(
        source,
        rules,
        p,
        record_count=max(record_count, 1),
        validator=validator,
        use_schema_validator=use_schema_validator,
    )

    widen(compiled.gen)

    def make_plan(count: int) -> Plan:
        return Plan(
            compiled.gen,
            compiled.tree,
            p,
            count,
            xsd=compiled.xsd,
            validator=None,
            block_size=compiled.block_size,
        )

    builder = CoverageBuilder(
        compiled.gen,
        compiled.tree,
        xsd=compiled.xsd,
        validator=compiled.validator,
        make_plan=make_plan,
        seed=p.seed,
    )
    cover = builder.build(mode, record_count, seconds=seconds)
    compiled.record_count = max(record_count, cover.size)
    plan = plan_of(compiled, p)
    plan.coverage = cover
    return plan, cover
