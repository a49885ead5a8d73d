"""Texts that may break one facet (or the simple type itself, or a fixed value) of an XSD simple
type, near the valid text they replace. Each is only a candidate: the breaker keeps the first
that xmlschema reports as that break alone."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from typing import Any

from app.generation.limits import MAX_FIELD_CHARS

_FILL = ("x", "!", "0", " ", "Z", "-", "9", "~")


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | Decimal):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    return None


def _text(x: Decimal) -> str:
    s = format(x, "f")
    return s.rstrip("0").rstrip(".") if "." in s else s


_STEPS = (Decimal(1), Decimal("0.5"), Decimal("0.01"), Decimal(10), Decimal(1000))


def _bounds(keyword: str, bound: Any, old: str) -> Iterator[str]:
    b = _number(bound)
    if b is None:  # a date or duration bound: the valid text's neighbours will not do
        return
    if keyword == "maxInclusive":
        yield from (_text(b + s) for s in _STEPS)
    elif keyword == "minInclusive":
        yield from (_text(b - s) for s in _STEPS)
    elif keyword == "maxExclusive":
        yield _text(b)
        yield from (_text(b + s) for s in _STEPS)
    elif keyword == "minExclusive":
        yield _text(b)
        yield from (_text(b - s) for s in _STEPS)


def _digits(keyword: str, limit: int, old: str) -> Iterator[str]:
    if limit + 2 > 40:
        return
    sign = "-" if old.startswith("-") else ""
    whole, _, frac = old.lstrip("+-").partition(".")
    if keyword == "totalDigits":
        yield sign + "1" * (limit + 1)
        yield f"{sign}0.{'1' * (limit + 1)}"
        yield f"{sign}{whole or '0'}.{'1' * (limit + 1)}"
        yield sign + "9" * (limit + 1)
        for f in range(limit + 2):  # one digit too many, split every way between the two parts
            yield sign + ("1" * (limit + 1 - f) or "0") + ("." + "1" * f if f else "")
    else:  # fractionDigits
        yield f"{sign}{whole or '0'}.{(frac + '1' * (limit + 1))[: limit + 1]}"
        yield f"{sign}0.{'1' * (limit + 1)}"
        yield f"{sign}{whole or '0'}.{'5' * (limit + 1)}"
        yield f"{sign}{(whole or '1')[:1]}.{'1' * (limit + 1)}"  # fewer digits in all


def _lengths(keyword: str, limit: int, old: str) -> Iterator[str]:
    base = old or "a"
    if keyword in ("maxLength", "length") and limit + 1 <= MAX_FIELD_CHARS:
        for fill in (base[-1], base[0], "a", *_FILL):
            yield (base + fill * (limit + 1))[: limit + 1]
        # a list type's length counts items: one more item
        yield " ".join([base.split()[0] if base.split() else "a"] * (limit + 1))
    if keyword in ("minLength", "length") and limit > 0:
        yield old[: limit - 1]
        yield old[len(old) - limit + 1 :]
        for fill in ("a", *_FILL):
            yield fill * (limit - 1)
        yield " ".join(old.split()[: limit - 1])


def _near(old: str) -> Iterator[str]:
    n = len(old)
    yield old + "!"
    yield "!" + old[1:] if old else "!"
    for fill in _FILL:
        if n:
            yield old[:-1] + fill
            yield fill + old[1:]
        yield old + fill
    yield old[:-1]
    yield old[1:]
    yield old.upper()
    yield old.lower()
    yield old + old
    yield ""
    for fill in _FILL:
        yield fill * max(1, n)


def candidates(keyword: str, facet: Any, old: str, fixed: str | None = None) -> Iterator[str]:
    """Texts to put in place of `old` to break `keyword` (`facet`: its xmlschema facet, None
    for `type` and `fixed`; `fixed`: the fixed value)."""
    if keyword in ("maxInclusive", "minInclusive", "maxExclusive", "minExclusive"):
        yield from _bounds(keyword, getattr(facet, "value", None), old)
    elif keyword in ("totalDigits", "fractionDigits") and isinstance(getattr(facet, "value", None), int):
        yield from _digits(keyword, facet.value, old)
    elif keyword in ("length", "minLength", "maxLength") and isinstance(getattr(facet, "value", None), int):
        yield from _lengths(keyword, facet.value, old)
        return
    elif keyword == "enumeration":
        for e in list(getattr(facet, "enumeration", None) or ())[:20]:
            s = e if isinstance(e, str) else _text(Decimal(e)) if _number(e) is not None else str(e)
            yield from (s + "x", s[:-1], s.upper(), s.lower(), "x" + s)
            if _number(e) is not None:
                yield from (_text(Decimal(s) + 1), _text(Decimal(s) - 1))
    elif keyword == "type":
        yield from ("x", "abc", "1.2.3", "--", "true false", "T", "9999-99-99", "1e", "NaN!", "")
    elif keyword == "fixed" and fixed is not None:
        try:
            d = Decimal(fixed)
            yield from (_text(d + 1), _text(d - 1), _text(d + Decimal("0.5")))
        except (InvalidOperation, ValueError):
            pass
        if fixed in ("true", "false", "1", "0"):
            yield from ("false", "true", "0", "1")
        yield from (fixed + "x", fixed[:-1], fixed.upper(), fixed.lower(), "x" + fixed, "x")
        return
    yield from _near(old)
