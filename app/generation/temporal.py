"""Date, date-time and time columns: integer epochs drawn within the bounds, formatted in bulk
with `numpy.datetime_as_string`.

Date-times and times carry a `Z` offset (RFC 3339 requires one for JSON Schema `date-time` and
`time`); for XSD they carry one unless the schema's own bounds have none, because XSD compares
zoned and unzoned values only partially. Years stay within 0001..9999.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

import numpy as np

from app.core.errors import Invalid
from app.generation.category_values import TEMPORAL_WINDOWS
from app.generation.fieldmodel import Kind
from app.generation.leafspec import LeafContext, LeafSpec, LeafValues
from app.generation.permutation import FeistelPermutation

_EPOCH = date(1970, 1, 1)
_MIN_DAY = (date(1, 1, 1) - _EPOCH).days
_MAX_DAY = (date(9999, 12, 31) - _EPOCH).days
_DATE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")
_DT_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?P<tz>[Zz]|[+-]\d{2}:\d{2})?$")
_TIME_RE = re.compile(r"^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?P<tz>[Zz]|[+-]\d{2}:\d{2})?$")
_RECENT = ("2018-01-01", "2026-06-30")
_RECENT_NAMES = re.compile(r"(created|updated|modified|timestamp|_at$|_on$|time$|date$|ordered|shipped|paid)")


def _day(text: str) -> int:
    m = _DATE_RE.match(text.strip())
    if not m:
        raise ValueError(text)
    return (date(int(m[1]), int(m[2]), int(m[3])) - _EPOCH).days


def _second(text: str) -> tuple[int, bool]:
    t = text.strip()
    m = _DT_RE.match(t)
    if m:
        tz = m["tz"]
        dt = datetime(int(m[1]), int(m[2]), int(m[3]), int(m[4]), int(m[5]), min(int(m[6]), 59),
                      tzinfo=UTC)
        if tz and tz not in "Zz":
            sign = 1 if tz[0] == "+" else -1
            dt -= sign * timedelta(hours=int(tz[1:3]), minutes=int(tz[4:6]))
        return int(dt.timestamp()), bool(tz)
    return _day(t) * 86400, False


def _time_of_day(text: str) -> tuple[int, bool]:
    m = _TIME_RE.match(text.strip())
    if not m:
        raise ValueError(text)
    return int(m[1]) * 3600 + int(m[2]) * 60 + min(int(m[3]), 59), bool(m["tz"])


class TemporalGenerator:
    """Columns of ISO dates, date-times or times within the spec's bounds."""

    def __init__(self, spec: LeafSpec, kind: Kind) -> None:
        self.spec = spec
        self.kind = kind
        zoned_bounds = []
        try:
            if kind == Kind.DATE:
                parse = lambda t: (_day(t), False)  # noqa: E731
                full = (_MIN_DAY, _MAX_DAY)
            elif kind == Kind.DATETIME:
                parse = _second
                full = (_MIN_DAY * 86400, _MAX_DAY * 86400 + 86399)
            else:
                parse = _time_of_day
                full = (0, 86399)
            lo, hi = full
            if spec.minimum is not None:
                v, z = parse(str(spec.minimum))
                zoned_bounds.append(z)
                lo = max(lo, v + (1 if spec.exclusive_minimum else 0))
            if spec.maximum is not None:
                v, z = parse(str(spec.maximum))
                zoned_bounds.append(z)
                hi = min(hi, v - (1 if spec.exclusive_maximum else 0))
        except ValueError:
            raise Invalid(f"{spec.path}: the bounds {spec.minimum!r}..{spec.maximum!r} are not ISO 8601.") from None
        if lo > hi:
            raise Invalid(f"{spec.path}: the minimum {spec.minimum} is after the maximum {spec.maximum}.")
        self.lo, self.hi = lo, hi
        # XSD compares zoned with unzoned values only partially: follow the bounds' style
        self.zone = "Z" if (not spec.xsd or not zoned_bounds or all(zoned_bounds)) else ""
        # realistic window
        window = TEMPORAL_WINDOWS.get(spec.category or "")
        if window is None and kind != Kind.TIME:
            window = _RECENT if _RECENT_NAMES.search(spec.name.lower()) else ("2000-01-01", "2030-12-31")
        if kind == Kind.TIME or window is None:
            a, b = lo, hi
        else:
            scale = 86400 if kind == Kind.DATETIME else 1
            a = max(lo, _day(window[0]) * scale)
            b = min(hi, _day(window[1]) * scale + (scale - 1))
            if a > b:
                a, b = (lo, min(hi, lo + 3650 * scale)) if lo > b else (max(lo, hi - 3650 * scale), hi)
        self.a, self.b = a, b

    def _render(self, v: np.ndarray) -> LeafValues:
        if self.kind == Kind.DATE:
            out = np.datetime_as_string(v.astype("datetime64[D]"), unit="D").tolist()
        elif self.kind == Kind.DATETIME:
            s = np.datetime_as_string(v.astype("datetime64[s]"), unit="s")
            out = [x + self.zone for x in s.tolist()] if self.zone else s.tolist()
        else:
            s = np.datetime_as_string(v.astype("datetime64[s]"), unit="s")
            out = [x[11:19] + self.zone for x in s.tolist()]
        return LeafValues(out)

    def generate(self, c: LeafContext, n: int) -> LeafValues:
        return self._render(c.rng.integers(self.a, self.b + 1, size=n))

    def value_space(self) -> int:
        return self.hi - self.lo + 1

    def generate_unique(self, c: LeafContext) -> LeafValues:
        lo, hi = self.a, self.b
        if hi - lo + 1 < c.key_space:
            lo, hi = self.lo, self.hi
        if hi - lo + 1 < c.key_space:
            raise Invalid(f"{self.spec.path}: only {hi - lo + 1} distinct values lie within the bounds, "
                          f"but {c.key_space} unique values are needed.")
        perm = FeistelPermutation(min(hi - lo + 1, 2**62 - 1), c.seed ^ c.field_key)
        return self._render(lo + perm(c.keys.astype(np.uint64)))
