"""The core's door to the generation engine (app.generation): the entry points the services and the
workers call, with the engine's own errors raised as domain errors. The one place that maps them:
a schema above the size limit is 413, anything else the engine refuses is 422, same sentence."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, ParamSpec, TypeVar

from app.core.errors import Invalid, PayloadTooLarge
from app.generation import plan as _plan
from app.generation import problems as _problems
from app.generation import rules as _rules
from app.generation.errors import GenerationError, SchemaTooLarge
from app.generation.model import FieldTree
from app.generation.plan import Plan
from app.generation.schema import loader as _loader
from app.generation.schema import repr as _repr
from app.generation.schema.loader import LoadedSchema

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def domain_errors() -> Iterator[None]:
    """Engine errors -> domain errors, detail unchanged."""
    try:
        yield
    except SchemaTooLarge as exc:
        raise PayloadTooLarge(exc.detail) from exc
    except GenerationError as exc:
        raise Invalid(exc.detail) from exc


def _mapped(fn: Callable[P, R]) -> Callable[P, R]:
    @wraps(fn)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        with domain_errors():
            return fn(*args, **kwargs)

    return call


load_schema = _mapped(_loader.load_schema)
schema_repr = _mapped(_repr.schema_repr)
parse_rules = _mapped(_rules.parse_rules)
parse_params = _mapped(_plan.parse_params)
compile_plan = _mapped(_plan.compile_plan)
root_problems = _mapped(_problems.root_problems)
blocking_problems = _mapped(_problems.blocking_problems)


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
