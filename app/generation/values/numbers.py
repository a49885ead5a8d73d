"""Integer and decimal columns that satisfy bounds, multipleOf, totalDigits and fractionDigits by
construction.
Design notes: docs/generation.md."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import orjson
from numpy.typing import NDArray

from app.generation.errors import Unsatisfiable
from app.generation.model import Kind, LeafContext, LeafSpec, LeafValues
from app.generation.values import textcodes
from app.generation.values.category_values import NUMERIC_WINDOWS
from app.generation.values.distributions import Shape, draw_steps
from app.generation.values.permutation import FeistelPermutation

_INT64_SAFE = 2**62
_FLOAT_EXACT = 2**53
_DEFAULT_INT_WINDOW = (Decimal(0), Decimal(100_000))
_DEFAULT_NUM_WINDOW = (Decimal(0), Decimal(10_000))
_DEFAULT_SCALE = 2
_REDRAWS = 12
_MACHINE_LIMITS = frozenset({-(2**31), 2**31 - 1, 2**32 - 1, -(2**63), 2**63 - 1, 2**64 - 1})


def _chosen(bound: object) -> bool:
    """Whether a bound is a range the schema or a rule chose, not the limit a machine integer
    type implies (xs:int, xs:long, ...: their fields get plausible values, not 19-digit ones)."""
    return bound is not None and not (isinstance(bound, int | float | Decimal) and bound in _MACHINE_LIMITS)


def _ceil(x: Fraction) -> int:
    return -((-x.numerator) // x.denominator)


def _floor(x: Fraction) -> int:
    return x.numerator // x.denominator


class NumberGenerator:
    """Columns of integers or exact decimals within the spec's facets."""

    def __init__(self, spec: LeafSpec) -> None:
        self.spec = spec
        self.integer = spec.kind == Kind.INTEGER
        window = NUMERIC_WINDOWS.get(spec.category or "")
        m = spec.multiple_of
        if m is not None and m <= 0:
            raise Unsatisfiable(f"{spec.path}: multipleOf must be greater than 0.")
        if self.integer:
            scale = 0
        elif m is not None:
            exponent = m.normalize().as_tuple().exponent
            assert isinstance(exponent, int)  # multipleOf is finite: the schema loaders keep no other
            scale = max(0, -exponent)
        elif spec.fraction_digits is not None:
            scale = min(spec.fraction_digits, window[2] if window else _DEFAULT_SCALE)
        else:
            scale = window[2] if window else _DEFAULT_SCALE
        if spec.total_digits is not None:
            scale = min(scale, spec.total_digits) if m is None else scale
        self.scale = scale
        unit = Fraction(10) ** scale
        step = 1
        if m is not None:
            fm = Fraction(m) * unit  # multipleOf in units
            # whole numbers of units that are multiples of p/q (reduced) are the multiples of p
            step = int(fm.numerator)
        if spec.fraction_digits is not None and spec.fraction_digits < scale:
            step = math.lcm(step, 10 ** (scale - spec.fraction_digits))
        self.step = step
        lo: int | None = None
        hi: int | None = None
        if spec.minimum is not None:
            f = Fraction(Decimal(str(spec.minimum))) * unit
            lo = _ceil(f)
            if spec.exclusive_minimum and f.denominator == 1 and lo == f:
                lo += 1
        if spec.maximum is not None:
            f = Fraction(Decimal(str(spec.maximum))) * unit
            hi = _floor(f)
            if spec.exclusive_maximum and f.denominator == 1 and hi == f:
                hi -= 1
        if spec.total_digits is not None:
            limit = 10**spec.total_digits - 1
            lo = -limit if lo is None else max(lo, -limit)
            hi = limit if hi is None else min(hi, limit)
        self.j_lo = None if lo is None else -((-lo) // step)
        self.j_hi = None if hi is None else hi // step
        if self.j_lo is not None and self.j_hi is not None and self.j_lo > self.j_hi:
            what = "integer" if self.integer else "number"
            mult = f" that is a multiple of {m}" if m is not None else ""
            raise Unsatisfiable(
                f"{spec.path}: no {what}{mult} lies between {spec.minimum} and {spec.maximum}."
            )
        self.w_lo, self.w_hi = self._draw_range(window, unit)
        self.shape = self._shape(unit)
        self.float_m = float(m) if (m is not None and m != m.to_integral_value() and not spec.xsd) else None
        self.big = max(abs(self.w_lo), abs(self.w_hi)) * step >= _INT64_SAFE

    def _shape(self, unit: Fraction) -> Shape:
        """The rule's distribution in steps; a normal or lognormal with a mean and sd is drawn
        over the allowed range (within 8 sd of the mean, 40 above a lognormal's), not a window."""
        spec = self.spec
        if spec.distribution is None or spec.distribution == "uniform":
            return Shape()
        if spec.mean is None or spec.sd is None:
            return Shape(spec.distribution)
        per = float(unit) / self.step
        mean, sd = float(spec.mean) * per, float(spec.sd) * per
        a = math.floor(mean - 8 * sd)
        b = math.ceil(mean + (40 if spec.distribution == "lognormal" else 8) * sd)
        self.w_lo = a if self.j_lo is None else max(a, self.j_lo)
        self.w_hi = b if self.j_hi is None else min(b, self.j_hi)
        if self.w_lo > self.w_hi:  # the rule check keeps the mean inside the range: a tiny sd
            self.w_lo = self.w_hi = min(max(round(mean), self.w_lo), self.w_hi)
        return Shape(spec.distribution, mean, sd)

    def _draw_range(self, window: tuple[Decimal, Decimal, int] | None, unit: Fraction) -> tuple[int, int]:
        """The j range values are drawn from: the whole allowed range when the schema (and rule)
        bound both ends; else the category's plausible window clipped to the one bound, or, when
        the window misses it, a stretch beside that bound as wide as the bound is far from zero."""
        spec, step = self.spec, self.step
        if (
            self.j_lo is not None
            and self.j_hi is not None
            and _chosen(spec.minimum)
            and _chosen(spec.maximum)
        ):
            return self.j_lo, self.j_hi
        wlo_d, whi_d = (
            (window[0], window[1])
            if window
            else (_DEFAULT_INT_WINDOW if self.integer else _DEFAULT_NUM_WINDOW)
        )
        w_lo = _ceil(Fraction(wlo_d) * unit / step)
        w_hi = _floor(Fraction(whi_d) * unit / step)
        a = w_lo if self.j_lo is None else max(w_lo, self.j_lo)
        b = w_hi if self.j_hi is None else min(w_hi, self.j_hi)
        if a <= b:
            return a, b
        if self.j_lo is not None and self.j_lo > w_hi:  # the window lies below the allowed range
            b = self.j_lo + max(w_hi - w_lo, abs(self.j_lo), 10)
            return self.j_lo, b if self.j_hi is None else min(b, self.j_hi)
        assert self.j_hi is not None  # the window lies above it
        a = self.j_hi - max(w_hi - w_lo, abs(self.j_hi), 10)
        return (a if self.j_lo is None else max(a, self.j_lo)), self.j_hi

    # -- helpers ---------------------------------------------------------------------------

    def _passes_float_check(self, k: np.ndarray) -> np.ndarray:
        if self.float_m is None:
            return np.ones(len(k), dtype=bool)
        x = k.astype(np.float64) / (10.0**self.scale)
        q = x / self.float_m
        whole: NDArray[np.bool_] = np.trunc(q) == q
        return whole

    def _render(self, ks: list[int] | np.ndarray) -> LeafValues:
        s = self.scale
        if isinstance(ks, np.ndarray):
            if s == 0:
                vals = ks.tolist()
                text = textcodes.int_texts(ks)
                return LeafValues(vals, text if text is not None else list(map(str, vals)))
            x = ks.astype(np.float64) / (10.0**s)
            ax = np.abs(x)
            # repr(float) is the shortest round-tripping text, i.e. the exact decimal, for values
            # of at most 15 digits written without an exponent (1e-4 <= |x| < 1e15)
            if (np.abs(ks) < 10**15).all() and ((ax >= 1e-4) | (x == 0)).all() and (ax < 1e15).all():
                fl = x.tolist()
                if self.integer:
                    ints = [int(v) for v in fl]
                    return LeafValues(ints, list(map(str, ints)))
                # exact decimal text without trailing fractional zeros: "20.1", "20" (XSD counts
                # a trailing zero as a fraction digit)
                text = textcodes.decimal_texts(ks, s)
                if text is None:
                    text = textcodes.strings(textcodes.decimals(ks, s))
                return LeafValues(fl, text)
            ks = ks.tolist()
        if s == 0:
            exact: list[int | orjson.Fragment] = [
                k if abs(k) < _INT64_SAFE else orjson.Fragment(str(k)) for k in ks
            ]
            return LeafValues(exact, [str(k) for k in ks])
        unit = 10**s
        text = []
        for k in ks:
            ip, fp = divmod(abs(k), unit)
            t = f"{ip}.{fp:0{s}d}".rstrip("0").rstrip(".")
            text.append(t if k >= 0 or t == "0" else "-" + t)
        if self.integer:
            return LeafValues([int(t) for t in text], text)
        vals = [
            (int(t) if "." not in t else float(t)) if abs(k) < _FLOAT_EXACT // 1000 else orjson.Fragment(t)
            for k, t in zip(ks, text, strict=True)
        ]
        return LeafValues(vals, text)

    def _draw_k(self, rng: np.random.Generator, n: int) -> list[int] | np.ndarray:
        if self.big:
            span = self.w_hi - self.w_lo + 1
            if span <= 2**62:
                offs = rng.integers(0, span, size=n).tolist()
            else:  # 53 random bits scaled over the whole span (Python ints: no overflow)
                offs = [(r * span) >> 53 for r in rng.integers(0, 2**53, size=n).tolist()]
            return [(self.w_lo + o) * self.step for o in offs]
        j = draw_steps(rng, n, self.w_lo, self.w_hi, self.shape)
        k = j * self.step
        ok = self._passes_float_check(k)
        for _ in range(_REDRAWS):
            if ok.all():
                break
            bad = np.flatnonzero(~ok)
            k[bad] = draw_steps(rng, bad.size, self.w_lo, self.w_hi, self.shape) * self.step
            ok[bad] = self._passes_float_check(k[bad])
        if not ok.all():
            raise Unsatisfiable(
                f"{self.spec.path}: no value between the bounds passes the validator's "
                f"floating-point multipleOf check."
            )
        return k

    def _keyed(self, base: int, offsets: np.ndarray) -> list[int] | np.ndarray:
        """(base + offset) * step for every offset: an int64 array for integers (rendered in bulk)
        when no value can leave the int64-safe range, else Python ints."""
        if self.scale == 0 and len(offsets):
            top = max(abs(base), abs(base + int(offsets.max()))) * self.step
            if top < _INT64_SAFE:
                return (base + offsets.astype(np.int64)) * self.step
        return [(base + int(x)) * self.step for x in offsets.tolist()]

    # -- public ----------------------------------------------------------------------------

    def generate(self, c: LeafContext, n: int) -> LeafValues:
        return self._render(self._draw_k(c.rng, n))

    def edge_values(self) -> LeafValues:
        """min, min + step, max - step and max (the draw window's ends where a bound is open)."""
        lo = self.j_lo if self.j_lo is not None else self.w_lo
        hi = self.j_hi if self.j_hi is not None else self.w_hi
        js = sorted({lo, min(lo + 1, hi), max(hi - 1, lo), hi})
        ks = [j * self.step for j in js]
        if self.float_m is not None:
            ks = [k for k, ok in zip(ks, self._passes_float_check(np.array(ks)), strict=True) if ok]
        small = all(abs(k) < _INT64_SAFE for k in ks)
        return self._render(np.array(ks, dtype=np.int64) if small and ks else ks)

    def value_space(self) -> int | None:
        if self.j_lo is None or self.j_hi is None:
            return None
        return self.j_hi - self.j_lo + 1

    def generate_unique(self, c: LeafContext) -> LeafValues:
        keys = c.keys
        if self.spec.row_number:
            start = self.w_lo if (self.j_lo is None or self.w_lo >= self.j_lo) else self.j_lo
            start = max(start, 1) if (self.j_lo is None or self.j_lo <= 1) else start
            if self.j_hi is not None and start + c.key_space - 1 > self.j_hi:
                raise Unsatisfiable(
                    f"{self.spec.path}: {c.key_space} unique values do not fit below {self.spec.maximum}."
                )
            return self._render(self._keyed(start, keys))
        # draw from the realistic window when it is large enough, else from the whole range
        lo, hi = self.w_lo, self.w_hi
        if hi - lo + 1 < c.key_space * 2:
            # an open lower end stays at 1 for a window of positive values (ids, codes), not below 0
            lo = self.j_lo if self.j_lo is not None else (1 if lo >= 0 else lo - c.key_space * 2)
            hi = self.j_hi if self.j_hi is not None else lo + c.key_space * 4
        space = hi - lo + 1
        if space < c.key_space:
            raise Unsatisfiable(
                f"{self.spec.path}: only {space} distinct values satisfy the facets, "
                f"but {c.key_space} unique values are needed."
            )
        space = min(space, 2**62 - 1)
        perm = FeistelPermutation(space, c.seed ^ c.field_key)
        j = perm(keys.astype(np.uint64))
        return self._render(self._keyed(lo, j))
