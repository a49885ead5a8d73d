"""Character sets as sorted code-point interval lists: normalise, negate, intersect, size, and the
printable preference broad sets draw from."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the stubs know the regex parser's constants by their old public name
    import sre_constants as sre_c
else:  # the same module (sre_constants re-exports it), without its deprecation warning
    import re._constants as sre_c

MAX_CODEPOINT = 0x10FFFF
Intervals = list[tuple[int, int]]  # sorted, disjoint, inclusive


def normalise_intervals(iv: Intervals) -> Intervals:
    out: Intervals = []
    for lo, hi in sorted(iv):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def negate_intervals(iv: Intervals) -> Intervals:
    out: Intervals = []
    prev = 0
    for lo, hi in normalise_intervals(iv):
        if lo > prev:
            out.append((prev, lo - 1))
        prev = hi + 1
    if prev <= MAX_CODEPOINT:
        out.append((prev, MAX_CODEPOINT))
    return out


def intersect_intervals(a: Intervals, b: Intervals) -> Intervals:
    out: Intervals = []
    for lo1, hi1 in a:
        for lo2, hi2 in b:
            lo, hi = max(lo1, lo2), min(hi1, hi2)
            if lo <= hi:
                out.append((lo, hi))
    return normalise_intervals(out)


def interval_size(iv: Intervals) -> int:
    return sum(hi - lo + 1 for lo, hi in iv)


PRINTABLE_ASCII: Intervals = [(0x20, 0x7E)]
# XML 1.0 Char minus controls (tab/newline/CR are legal XML but are normalised away in attributes)
_LEGAL: Intervals = [(0x20, 0xD7FF), (0xE000, 0xFFFD), (0x10000, MAX_CODEPOINT)]
CATEGORY_SETS: dict[object, Intervals] = {
    sre_c.CATEGORY_DIGIT: [(0x30, 0x39)],
    sre_c.CATEGORY_SPACE: [(0x09, 0x0D), (0x20, 0x20)],
    sre_c.CATEGORY_WORD: [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
}


def preferred_intervals(iv: Intervals) -> Intervals:
    """The characters actually drawn for a set: legal ones, printable ASCII when the set is broad."""
    legal = intersect_intervals(iv, _LEGAL)
    if not legal:
        # only controls left (e.g. `[\t\n]`): tab/newline are legal XML text, keep them
        legal = intersect_intervals(iv, [(0x09, 0x0A), (0x0D, 0x0D)])
    ascii_part = intersect_intervals(legal, PRINTABLE_ASCII)
    if ascii_part and (interval_size(legal) > 200 or ascii_part == legal):
        return ascii_part
    return legal
