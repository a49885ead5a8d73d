"""Numbers and dates formatted in bulk, never with a per-value `repr`/`strftime`.
Design notes: docs/generation.md."""

from __future__ import annotations

from functools import cache

import numpy as np
from numpy.typing import NDArray

from app.generation.values.regex import codes_to_strings
from app.generation.values.regex_nodes import concat_codes

_ZERO = ord("0")
Piece = tuple[np.ndarray, np.ndarray]  # (codes (n, w) uint32, lengths (n,))


def literal(text: str, n: int) -> Piece:
    codes = np.array([ord(c) for c in text], dtype=np.uint32)
    return np.broadcast_to(codes, (n, len(text))), np.full(n, len(text), dtype=np.int64)


def fixed(values: np.ndarray, width: int) -> Piece:
    """Non-negative integers as zero-padded digits of exactly `width` characters."""
    v = np.asarray(values, dtype=np.int64)
    powers = 10 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    digits = (v[:, None] // powers[None, :]) % 10
    return (digits + _ZERO).astype(np.uint32), np.full(len(v), width, dtype=np.int64)


def integers(values: np.ndarray) -> Piece:
    """Integers (|v| < 10**18) as minimal decimal text, with a leading '-' when negative."""
    v = np.asarray(values, dtype=np.int64)
    n = len(v)
    neg = v < 0
    a = np.abs(v)
    width = max(1, len(str(int(a.max())))) if n else 1
    digits = np.ones(n, dtype=np.int64)
    for j in range(1, width):
        digits += a >= 10**j
    full, _ = fixed(a, width)
    # left-align: row i keeps its last digits[i] columns
    pos = (width - digits)[:, None] + np.arange(width)[None, :]
    valid = np.arange(width)[None, :] < digits[:, None]
    out = np.where(valid, np.take_along_axis(full, np.minimum(pos, width - 1), axis=1), 0).astype(np.uint32)
    if not neg.any():
        return out, digits
    sign = np.where(neg, ord("-"), 0).astype(np.uint32)[:, None]
    return concat_codes([(sign, neg.astype(np.int64)), (out, digits)], n)


def decimals(k: np.ndarray, scale: int) -> Piece:
    """k * 10**-scale as exact decimal text without trailing fractional zeros ("19.9", "20")."""
    k = np.asarray(k, dtype=np.int64)
    if scale == 0:
        return integers(k)
    unit = 10**scale
    neg = k < 0
    a = np.abs(k)
    ip, fp = a // unit, a % unit
    int_codes, int_len = integers(np.where(neg, -ip, ip))
    # a negative value with a zero integer part still needs its sign: "-0.5"
    zero_neg = neg & (ip == 0)
    if zero_neg.any():
        sign = np.where(zero_neg, ord("-"), 0).astype(np.uint32)[:, None]
        int_codes, int_len = concat_codes([(sign, zero_neg.astype(np.int64)), (int_codes, int_len)], len(k))
    frac_codes, _ = fixed(fp, scale)
    trailing = np.zeros(len(k), dtype=np.int64)
    for j in range(scale - 1, -1, -1):  # count trailing zeros of the fraction
        trailing += (trailing == scale - 1 - j) & (frac_codes[:, j] == _ZERO)
    frac_len = np.where(fp == 0, 0, scale - trailing)
    frac_codes = np.where(np.arange(scale)[None, :] < frac_len[:, None], frac_codes, 0).astype(np.uint32)
    dot = np.where(frac_len > 0, ord("."), 0).astype(np.uint32)[:, None]
    return concat_codes(
        [(int_codes, int_len), (dot, (frac_len > 0).astype(np.int64)), (frac_codes, frac_len)], len(k)
    )


def civil(days: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Days since 1970-01-01 -> (year, month, day), proleptic Gregorian (H. Hinnant's algorithm)."""
    z = np.asarray(days, dtype=np.int64) + 719468
    era = np.floor_divide(z, 146097)
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = np.where(mp < 10, mp + 3, mp - 9)
    return y + (m <= 2), m, d


def dates(days: np.ndarray) -> Piece:
    y, m, d = civil(days)
    n = len(y)
    dash = literal("-", n)
    return concat_codes([fixed(y, 4), dash, fixed(m, 2), dash, fixed(d, 2)], n)


def times(seconds_of_day: np.ndarray) -> Piece:
    s = np.asarray(seconds_of_day, dtype=np.int64)
    n = len(s)
    colon = literal(":", n)
    return concat_codes([fixed(s // 3600, 2), colon, fixed((s // 60) % 60, 2), colon, fixed(s % 60, 2)], n)


def datetimes(seconds: np.ndarray, zone: str) -> Piece:
    s = np.asarray(seconds, dtype=np.int64)
    n = len(s)
    days = np.floor_divide(s, 86400)
    parts = [dates(days), literal("T", n), times(s - days * 86400)]
    if zone:
        parts.append(literal(zone, n))
    return concat_codes(parts, n)


def strings(piece: Piece) -> list[str]:
    return codes_to_strings(piece[0])


# -- table gathers -------------------------------------------------------------------------

_BASE = 10_000  # table size: integers below _BASE**2 take at most two gathers
_SIGN = np.array(["", "-"], dtype=object)


@cache
def small_int_texts() -> NDArray[np.object_]:
    """Object array of "0", "1", ... "9999" (gather with an index array for a column of texts)."""
    return np.array([str(i) for i in range(_BASE)], dtype=object)


@cache
def _padded_ints() -> NDArray[np.object_]:
    return np.array([f"{i:04d}" for i in range(_BASE)], dtype=object)


@cache
def _fractions(scale: int) -> NDArray[np.object_]:
    """ ".5", ".25", ... for 0..10**scale-1: the fraction digits without trailing zeros ("" for 0)."""
    return np.array([""] + [("." + f"{f:0{scale}d}").rstrip("0") for f in range(1, 10**scale)], dtype=object)


def _magnitudes(a: NDArray[np.int64]) -> NDArray[np.object_]:
    """Object array of the decimal texts of non-negative integers below _BASE**2."""
    small = small_int_texts()
    if not len(a) or int(a.max()) < _BASE:
        return small[a]
    hi, lo = np.divmod(a, _BASE)
    out = small[lo]
    big = np.flatnonzero(hi)
    out[big] = small[hi[big]] + _padded_ints()[lo[big]]
    return out


def _signed(neg: np.ndarray, texts: np.ndarray) -> list[str]:
    if neg.any():
        texts = _SIGN[neg.view(np.int8)] + texts
    out: list[str] = texts.tolist()
    return out


def int_texts(values: np.ndarray) -> list[str] | None:
    """Minimal decimal text of int64 values (the same as `str`), or None when some |v| >= 10**8."""
    v = np.asarray(values, dtype=np.int64)
    if not len(v):
        return []
    neg = v < 0
    a = np.abs(v)
    if int(a.min()) < 0 or int(a.max()) >= _BASE**2:  # a.min() < 0: abs(int64 min) overflowed
        return None
    return _signed(neg, _magnitudes(a))


def decimal_texts(k: np.ndarray, scale: int) -> list[str] | None:
    """`decimals(k, scale)` as strings through table gathers; None when scale > 4 or when some
    integer part is >= 10**8 (the caller renders those as code matrices)."""
    if scale == 0:
        return int_texts(k)
    k = np.asarray(k, dtype=np.int64)
    if scale > 4:
        return None
    if not len(k):
        return []
    neg = k < 0
    a = np.abs(k)
    if int(a.min()) < 0:
        return None
    ip, fp = np.divmod(a, 10**scale)
    if int(ip.max()) >= _BASE**2:
        return None
    return _signed(neg, _magnitudes(ip) + _fractions(scale)[fp])


class TextTable:
    """The texts of a contiguous integer range [lo, lo + len(texts)) (a date window, say): a
    column of values in that range renders as one gather."""

    def __init__(self, lo: int, texts: list[str]) -> None:
        self.lo = lo
        self.texts = np.array(texts, dtype=object)

    def covers(self, values: np.ndarray) -> bool:
        return not len(values) or (
            int(values.min()) >= self.lo and int(values.max()) < self.lo + len(self.texts)
        )

    def gather(self, values: np.ndarray) -> np.ndarray:
        return self.texts[np.asarray(values, dtype=np.int64) - self.lo]
