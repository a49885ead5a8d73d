"""The values a leaf's coverage targets pin and the tests their probes apply: numbers compared
by value (1 == 1.0 == Decimal("1")), bounds compared lexically where the record holds text, and a
string of an exact length drawn by the engine for a minLength/maxLength target."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from app.generation.values.strings import StringGenerator


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float, Decimal)) and isinstance(b, (int, float, Decimal)):
        return Decimal(str(a)) == Decimal(str(b))
    if hasattr(a, "__float__") and isinstance(b, (int, float, Decimal)):
        return Decimal(str(a)) == Decimal(str(b))
    return bool(a == b)


def _equals(p: Any) -> Callable[[Any], bool]:
    return lambda x: _equal(x, p)


def _lexically(p: Any) -> Callable[[Any], bool]:
    return lambda x: _equal_lexical(x, p)


def _str_length(n: int) -> Callable[[Any], bool]:
    return lambda x: isinstance(x, str) and len(x) == n


def _list_length(n: int) -> Callable[[Any], bool]:
    return lambda x: isinstance(x, list) and len(x) == n


def _equal_lexical(x: Any, p: Any) -> bool:
    if isinstance(x, str) and isinstance(p, str):
        return x == p
    try:
        return _equal(x, p)
    except ArithmeticError:
        return False


def _jsonable(v: Any) -> Any:
    """A target's value as the report writes it (numbers as JSON numbers)."""
    if isinstance(v, Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, list):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    if hasattr(v, "__float__") and not isinstance(v, (int, float, bool)):
        return float(v)
    return v


def _plain(v: Any) -> Any:
    from app.generation.engine.generators import plain_json

    try:
        return plain_json(v)
    except TypeError:
        return str(v)


def _string_of_length(
    vg: StringGenerator, spec: Any, length: int, seed: int
) -> tuple[str | None, str | None]:
    """A value of exactly `length` characters meeting the field's facets, drawn by the engine."""
    from dataclasses import replace

    import numpy as np

    from app.generation.engine.blocks import BlockContext, Shared
    from app.generation.errors import GenerationError
    from app.generation.model import LeafContext

    exact = replace(spec, min_length=length, max_length=length, unique=False, row_number=False, edge_rate=0.0)
    try:
        sg = StringGenerator(exact)
        bc = BlockContext(seed, 0, "en_US")
        n = 32
        ctx = LeafContext(np.random.default_rng(seed), "en_US", np.arange(n), n, Shared(bc, 1, n), seed, 1)
        drawn = [v for v in sg.generate(ctx, n).values if isinstance(v, str) and len(v) == length]
        ok = [v for v, good in zip(drawn, vg.ok(drawn).tolist(), strict=True) if good] if drawn else []
    except (GenerationError, ValueError) as exc:
        return None, f"no value of {length} characters meets the field's facets ({exc})"
    if not ok:
        return None, f"no value of {length} characters meeting the field's facets could be drawn"
    return ok[0], None
