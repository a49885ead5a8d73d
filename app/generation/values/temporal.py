"""Date, date-time and time columns. (design notes: docs/generation.md)"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

import numpy as np

from app.generation.errors import Unsatisfiable
from app.generation.model import Kind, LeafContext, LeafSpec, LeafValues
from app.generation.values.category_values import DEFAULT_DATE_WINDOW, RECENT_WINDOW, TEMPORAL_WINDOWS
from app.generation.values.permutation import FeistelPermutation
from app.generation.values.textcodes import TextTable

_EPOCH = date(1970, 1, 1)
_MIN_DAY = (date(1, 1, 1) - _EPOCH).days
_MAX_DAY = (date(9999, 12, 31) - _EPOCH).days
_DATE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")
_DT_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?P<tz>[Zz]|[+-]\d{2}:\d{2})?$"
)
_TIME_RE = re.compile(r"^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?P<tz>[Zz]|[+-]\d{2}:\d{2})?$")
_TABLE_DAYS = 40_000  # realistic windows up to ~110 years render from a table of their days
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
        dt = datetime(int(m[1]), int(m[2]), int(m[3]), int(m[4]), int(m[5]), min(int(m[6]), 59), tzinfo=UTC)
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


def _leap_day(d0: int, d1: int) -> int | None:
    """The first 29 February (epoch day) in [d0, d1], or None."""
    year = (_EPOCH + timedelta(days=max(d0, _MIN_DAY))).year
    for y in range(year, min(year + 9, 9999) + 1):
        if y % 4 == 0 and (y % 100 != 0 or y % 400 == 0):
            day = (date(y, 2, 29) - _EPOCH).days
            return day if d0 <= day <= d1 else None
    return None


@lru_cache(maxsize=64)
def _day_table(d0: int, d1: int) -> TextTable:
    span = np.arange(d0, d1 + 1, dtype=np.int64)
    return TextTable(d0, np.datetime_as_string(span.astype("datetime64[D]"), unit="D").tolist())


@lru_cache(maxsize=4)
def _minute_table(prefix: str) -> np.ndarray:
    return np.array([f"{prefix}{m // 60:02d}:{m % 60:02d}" for m in range(1440)], dtype=object)


@lru_cache(maxsize=4)
def _second_table(zone: str) -> np.ndarray:
    return np.array([f":{x:02d}{zone}" for x in range(60)], dtype=object)


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
            raise Unsatisfiable(
                f"{spec.path}: the bounds {spec.minimum!r}..{spec.maximum!r} are not ISO 8601."
            ) from None
        if lo > hi:
            raise Unsatisfiable(
                f"{spec.path}: the minimum {spec.minimum} is after the maximum {spec.maximum}."
            )
        self.lo, self.hi = lo, hi
        # XSD compares zoned with unzoned values only partially: follow the bounds' style
        self.zone = "Z" if (not spec.xsd or not zoned_bounds or all(zoned_bounds)) else ""
        self.a, self.b = self._draw_range(spec.minimum is not None and spec.maximum is not None)
        self._table_cache: tuple[TextTable | None, np.ndarray, np.ndarray] | None = None
        self._tables()  # built now, while the schema compiles, not in the first block

    def _draw_range(self, bounded: bool) -> tuple[int, int]:
        """The epochs values are drawn from: the whole allowed range for a time of day and when
        the schema (and rule) bound both ends; else the category's plausible window (timestamps
        of the last five years, birth dates of adults) clipped to the one bound, or ten years
        beside that bound when the window misses it."""
        lo, hi = self.lo, self.hi
        if self.kind == Kind.TIME or bounded:
            return lo, hi
        window = TEMPORAL_WINDOWS.get(self.spec.category or "")
        if window is None:
            recent = _RECENT_NAMES.search(self.spec.name.lower())
            window = RECENT_WINDOW if recent else DEFAULT_DATE_WINDOW
        scale = 86400 if self.kind == Kind.DATETIME else 1
        a = max(lo, _day(window[0]) * scale)
        b = min(hi, _day(window[1]) * scale + (scale - 1))
        if a <= b:
            return a, b
        return (lo, min(hi, lo + 3650 * scale)) if lo > b else (max(lo, hi - 3650 * scale), hi)

    def _tables(self) -> tuple[TextTable | None, np.ndarray, np.ndarray]:
        """(dates of the realistic window's days, "HH:MM" of each minute of a day, ":SS" + zone of
        each second): a column inside the window renders as gathers plus two concatenations."""
        if self._table_cache is None:
            scale = 1 if self.kind == Kind.DATE else 86400
            d0, d1 = self.a // scale, self.b // scale
            days = _day_table(d0, d1) if self.kind != Kind.TIME and d1 - d0 < _TABLE_DAYS else None
            self._table_cache = (
                days,
                _minute_table("T" if self.kind == Kind.DATETIME else ""),
                _second_table(self.zone),
            )
        return self._table_cache

    def _gathered(self, v: np.ndarray) -> list[str] | None:
        days, minutes, seconds = self._tables()
        if self.kind == Kind.TIME:
            if not len(v) or v.min() < 0 or v.max() >= 86400:
                return None
            times: list[str] = (minutes[v // 60] + seconds[v % 60]).tolist()
            return times
        if self.kind == Kind.DATE:
            return days.gather(v).tolist() if days is not None and days.covers(v) else None
        d, sod = np.divmod(v, 86400)
        if days is None or not days.covers(d):
            return None
        m, sec = np.divmod(sod, 60)
        stamps: list[str] = (days.gather(d) + minutes[m] + seconds[sec]).tolist()
        return stamps

    def _render(self, v: np.ndarray) -> LeafValues:
        out = self._gathered(np.asarray(v, dtype=np.int64))
        if out is not None:
            return LeafValues(out)
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

    def edge_values(self) -> LeafValues:
        """The range's ends and their neighbours, a leap day and 23:59:59 where the range holds
        them (an open end is the draw window's)."""
        lo = self.lo if self.spec.minimum is not None else self.a
        hi = self.hi if self.spec.maximum is not None else self.b
        edges = {lo, min(lo + 1, hi), max(hi - 1, lo), hi}
        if self.kind == Kind.TIME:
            edges.add(86399 if lo <= 86399 <= hi else hi)
        else:
            scale = 1 if self.kind == Kind.DATE else 86400
            leap = _leap_day(lo // scale, hi // scale)
            if leap is not None:
                edges.add(max(lo, min(hi, leap * scale + (43200 if scale > 1 else 0))))
            if scale > 1:
                last = (lo // 86400) * 86400 + 86399
                edges.add(last if last <= hi else hi)
        return self._render(np.array(sorted(edges), dtype=np.int64))

    def value_space(self) -> int:
        return self.hi - self.lo + 1

    def generate_unique(self, c: LeafContext) -> LeafValues:
        lo, hi = self.a, self.b
        if hi - lo + 1 < c.key_space:
            lo, hi = self.lo, self.hi
        if hi - lo + 1 < c.key_space:
            raise Unsatisfiable(
                f"{self.spec.path}: only {hi - lo + 1} distinct values lie within the bounds, "
                f"but {c.key_space} unique values are needed."
            )
        perm = FeistelPermutation(min(hi - lo + 1, 2**62 - 1), c.seed ^ c.field_key)
        return self._render(lo + perm(c.keys.astype(np.uint64)))
