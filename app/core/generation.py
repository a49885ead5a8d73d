"""The core's door to the generation engine (app.generation): the entry points the services and the
workers call, with the engine's own errors raised as domain errors. The one place that maps them:
a schema above the size limit is 413, anything else the engine refuses is 422, same sentence.

The engine proper (plan, compiler, value generators, writers, rules, problems) is imported on
the first call of a door that needs it, not with this module: the API process imports this module
at start-up but generates datasets only in its worker processes, and a module once imported (the
engine, faker's vocabularies, the writers) is memory the process holds for good. The schema
loader, which every upload needs, is imported with the module."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import wraps
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import orjson

from app.core.error_codes import ErrorCode
from app.core.errors import DomainError, Invalid, PayloadTooLarge
from app.core.lru import BoundedLRU
from app.generation.errors import GenerationError, SchemaTooLarge
from app.generation.schema import loader as _loader

if TYPE_CHECKING:
    from app.generation.coverage.sets import CoverageSet
    from app.generation.model import FieldTree
    from app.generation.params import GenerationParams
    from app.generation.plan import Plan
    from app.generation.rules import Rule
    from app.generation.schema.loader import LoadedSchema

P = ParamSpec("P")
R = TypeVar("R")
log = logging.getLogger(__name__)


@contextmanager
def domain_errors() -> Iterator[None]:
    """Engine errors -> domain errors, detail, code and field unchanged."""
    try:
        yield
    except SchemaTooLarge as exc:
        raise PayloadTooLarge(exc.detail, code=ErrorCode(exc.code), field=exc.field) from exc
    except GenerationError as exc:
        raise Invalid(exc.detail, code=ErrorCode(exc.code), field=exc.field) from exc


def _mapped(fn: Callable[P, R]) -> Callable[P, R]:
    @wraps(fn)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        with domain_errors():
            return fn(*args, **kwargs)

    return call


load_schema = _mapped(_loader.load_schema)


async def in_thread(what: str, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Engine work a request waits for (a coverage set, a plan with invalid records), off the event
    loop. Domain errors pass unchanged; anything else the young engine code raises (MemoryError,
    RecursionError, a bug) is logged and answered as a dataset with these inputs would fail: 422,
    never a 500."""
    try:
        return await asyncio.to_thread(fn, *args, **kwargs)
    except DomainError:
        raise
    except Exception:
        log.exception("%s failed unexpectedly", what)
        raise Invalid(
            "Generation failed unexpectedly; the error has been logged for the operators.",
            code=ErrorCode.GENERATION_FAILED,
        ) from None


@_mapped
def schema_repr(loaded: LoadedSchema, root: str | None = None) -> dict[str, Any]:
    # imported on first use: the field semantics behind it load Faker's locale data, which a
    # server that never serves a representation should not hold
    from app.generation.schema.repr import schema_repr

    return schema_repr(loaded, root)


@_mapped
def parse_rules(tree: FieldTree, raw_rules: object) -> list[Rule]:
    from app.generation.rules import parse_rules

    return parse_rules(tree, raw_rules)


@_mapped
def parse_params(raw: Mapping[str, Any] | None) -> GenerationParams:
    from app.generation.params import parse_params

    return parse_params(raw)


@_mapped
def compile_plan(
    source: Any,
    rules: Sequence[Any] = (),
    params: Mapping[str, Any] | GenerationParams | None = None,
    *,
    record_count: int,
    validator: Any = None,
    use_schema_validator: bool = True,
) -> Plan:
    from app.generation.plan import compile_plan

    return compile_plan(
        source,
        rules,
        params,
        record_count=record_count,
        validator=validator,
        use_schema_validator=use_schema_validator,
    )


@_mapped
def root_problems(loaded: LoadedSchema, root: str | None = None) -> list[dict[str, Any]]:
    from app.generation.problems import root_problems

    return root_problems(loaded, root)


@_mapped
def resolve_root(loaded: LoadedSchema, root: str | None) -> str:
    """The canonical name of `root` (None: the default root); 422 for an unknown root."""
    return loaded.resolve_root(root)


@_mapped
def field_count(loaded: LoadedSchema) -> int:
    """The default root's leaf fields (builds its field tree, which may refuse the schema)."""
    return loaded.field_count


@_mapped
def field_tree(loaded: LoadedSchema, root: str | None) -> FieldTree:
    """The field tree of `root` (None: the default root); 422 for an unknown root."""
    return loaded.field_tree(root)


@_mapped
def write(plan: Plan, *args: Any, **kwargs: Any) -> int:
    """`Plan.write`: records are drawn while writing, so the guard or a re-draw may still refuse."""
    return plan.write(*args, **kwargs)


@_mapped
def write_many(plan: Plan, *args: Any, **kwargs: Any) -> list[int]:
    """`Plan.write_many`, as `write`."""
    return plan.write_many(*args, **kwargs)


# -- compiled plans, cached ------------------------------------------------------------------
#
# A preview compiles its schema for every query, and a worker for every dataset, though most
# compile what was compiled a moment before: the same schema, rules and params, another seed.
# What compiling builds does not depend on the seed (nor on the locale: both only key the blocks'
# randomness), so it is kept per process, keyed by everything else it is built from: the schema's
# content (its storage key is the sha256 of its bytes) and file name, the rules, every param but
# the seed, and the record count. Each call still runs the fail-fast probe with its own seed.
# Bounded by count, and small: an entry holds the schema's field tree and generator tree (the
# schema cache may have dropped the parse meanwhile).
PLAN_CACHE_SIZE = 8
NEGATIVE_FORMATS = ("json", "ndjson")  # the formats that carry a JSON Schema's invalid records
NEGATIVE_XSD_FORMATS = ("xml",)  # the format that carries an XSD's invalid records


@dataclass(frozen=True, slots=True)
class PlanCacheInfo:
    hits: int
    misses: int
    size: int
    max_size: int


_plan_cache: BoundedLRU[tuple[Any, ...], Any] = BoundedLRU(PLAN_CACHE_SIZE)


def plan_cache_info() -> PlanCacheInfo:
    """This process's compiled-plan cache: hits and misses so far, entries held."""
    cache = _plan_cache
    return PlanCacheInfo(cache.hits, cache.misses, len(cache), cache.max_size)


def clear_plan_cache() -> None:
    _plan_cache.clear()


@_mapped
def cached_plan(
    schema_key: tuple[str, str | None],
    load: Callable[[], LoadedSchema],
    raw_rules: Sequence[Mapping[str, Any]],
    raw_params: Mapping[str, Any] | None,
    *,
    record_count: int,
    formats: Sequence[str] = NEGATIVE_FORMATS,
    coverage_seconds: float | None = None,
) -> Plan:
    """`compile_plan` of a stored schema (`schema_key`: its storage key, the sha256 of its bytes,
    and its file name; `load` parses it when needed), its raw rules and params, compiled once per
    process for any seed. The bytes written are those of an uncached compile. `formats`: what
    the plan will write, which params.invalid_rate's records must fit. `coverage_seconds`: the time
    params.coverage's set may take to build (a request's render; 422 coverage_too_large past it)."""
    from app.generation.params import parse_params
    from app.generation.plan import compile_generators, plan_of
    from app.generation.rules import parse_rules

    params = parse_params(raw_params)
    if params.coverage == "each" and params.invalid_rate == 1:
        # the negative suite: one invalid record per breakable constraint (not cached: its own size)
        from app.generation.coverage.suite import compile_negative_suite

        loaded = load()
        rules = parse_rules(loaded.field_tree(params.root), list(raw_rules)) if raw_rules else []
        keywords = list(params.invalid_keywords) if params.invalid_keywords else None
        return compile_negative_suite(
            loaded, rules, params, record_count=record_count, keywords=keywords, formats=formats
        )
    if params.coverage is not None:
        # its generators carry the coverage set's pins: compiled for this plan alone, not cached
        from app.generation.coverage import compile_coverage

        loaded = load()
        rules = parse_rules(loaded.field_tree(params.root), list(raw_rules)) if raw_rules else []
        plan = compile_coverage(
            loaded, rules, params, mode=params.coverage, record_count=record_count, seconds=coverage_seconds
        )[0]
        return _with_negative(plan, load, formats, raw_rules)
    # every param but the seed (a frozen dataclass: hashable), the rules as canonical JSON
    key = (
        schema_key,
        replace(params, seed=0),
        orjson.dumps(list(raw_rules), option=orjson.OPT_SORT_KEYS),
        record_count,
    )
    compiled = _plan_cache.get(key)
    if compiled is None:
        loaded = load()
        rules = parse_rules(loaded.field_tree(params.root), list(raw_rules)) if raw_rules else []
        compiled = compile_generators(loaded, rules, params, record_count=record_count)
        plan = plan_of(compiled, params)  # a compile that fails its probe is not kept
        _plan_cache.put(key, compiled)
        return _with_negative(plan, load, formats, raw_rules)
    return _with_negative(plan_of(compiled, params), load, formats, raw_rules)


def _with_negative(
    plan: Plan, load: Callable[[], LoadedSchema], formats: Sequence[str], rules: Sequence[Mapping[str, Any]]
) -> Plan:
    """`plan` with params.invalid_rate's invalid records attached (plan.negative): the engine
    refuses a rate out of range, an XSD schema, a format that cannot carry them, a keyword the
    schema has nothing breakable for and a schema with nothing breakable (ParamsError: 422)."""
    if not plan.params.invalid_rate:
        return plan
    from app.generation.negative.engine import attach_negative

    keywords = list(plan.params.invalid_keywords) if plan.params.invalid_keywords else None
    attach_negative(
        plan, load(), rate=plan.params.invalid_rate, keywords=keywords, formats=formats, rules=list(rules)
    )
    return plan


@_mapped
def coverage_set(
    load: Callable[[], LoadedSchema],
    raw_rules: Sequence[Mapping[str, Any]],
    raw_params: Mapping[str, Any] | None,
    *,
    mode: str,
    record_count: int = 1,
    seconds: float | None = None,
) -> CoverageSet:
    """The coverage set (`each` | `pairwise`) a dataset with these inputs starts with: its size
    and targets (the report). A function of the inputs and the seed, like the records. `seconds`:
    the time it may take to build (422 coverage_too_large past it)."""
    from app.generation.coverage import compile_coverage, coverage_mode
    from app.generation.params import parse_params
    from app.generation.rules import parse_rules

    coverage_mode(mode)
    params = parse_params({**(raw_params or {}), "coverage": mode})
    loaded = load()
    rules = parse_rules(loaded.field_tree(params.root), list(raw_rules)) if raw_rules else []
    return compile_coverage(loaded, rules, params, mode=mode, record_count=record_count, seconds=seconds)[1]
