"""Values composed at draw time from Faker's locale data, so that a column is not a draw from a
fixed pool of a few thousand values (issue 32): a phone number or a street keeps the shape of a
Faker value of the locale and gets fresh digits; a sentence is words of the locale's lorem list;
a company name is one of the locale's company formats filled with the locale's family names.
Each is vectorised: one matrix of code points per column, or one joined string split in C.
Design notes: docs/generation.md (values/compose.py)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from app.generation.values.regex import codes_to_strings

_ZERO, _ONE, _TEN = ord("0"), ord("1"), ord("9") + 1
SLOT = "\x01"  # a family name's place in a company template (vocab.py builds the templates)


@dataclass(frozen=True)
class DigitTemplates:
    """Sample values as code-point rows, with the ASCII digits that are drawn afresh."""

    codes: np.ndarray  # (P, L) uint32, zero-padded
    free: np.ndarray  # (P, L) bool: digits drawn again
    lead: np.ndarray  # (P, L) bool: of those, the first digit of a number (drawn 1-9)


def digit_templates(values: Sequence[str], kept: Callable[[str], int], lead_nonzero: bool) -> DigitTemplates:
    """`kept(value)` leading ASCII digits of each value stay (a calling code, an area code); the
    other ASCII digits are drawn afresh, the first of each run 1-9 when `lead_nonzero` (a house
    number never starts with 0)."""
    width = max((len(v) for v in values), default=1) or 1
    codes = np.zeros((len(values), width), dtype=np.uint32)
    free = np.zeros((len(values), width), dtype=bool)
    lead = np.zeros((len(values), width), dtype=bool)
    for r, value in enumerate(values):
        if not value:
            continue
        row = np.frombuffer(value.encode("utf-32-le"), dtype=np.uint32)
        codes[r, : len(row)] = row
        keep = kept(value)
        seen = 0
        previous_digit = False
        for j, code in enumerate(row.tolist()):
            digit = _ZERO <= code < _TEN
            if digit:
                seen += 1
                if seen > keep:
                    free[r, j] = True
                    lead[r, j] = lead_nonzero and not previous_digit
            previous_digit = digit
    return DigitTemplates(codes, free, lead)


def fill_digits(t: DigitTemplates, rng: np.random.Generator, idx: np.ndarray) -> list[str]:
    """The templates of rows `idx`, each with fresh digits."""
    codes = t.codes[idx]
    if not codes.size:
        return [""] * len(idx)
    rows, cols = np.nonzero(t.free[idx])  # only the drawn digits are touched
    digits = rng.integers(_ZERO, _TEN, size=rows.size, dtype=np.uint32)
    lead = t.lead[idx[rows], cols]
    if lead.any():
        digits[lead] = rng.integers(_ONE, _TEN, size=int(lead.sum()), dtype=np.uint32)
    codes[rows, cols] = digits
    return codes_to_strings(codes)


@dataclass(frozen=True)
class Numbered:
    """Sample values split at their first number (a house number): text before, its digit
    count, text after; the number is drawn afresh with as many digits."""

    head: np.ndarray  # object
    digits: np.ndarray  # int64, 0 where the value holds no number (or one over 5 digits)
    tail: np.ndarray  # object


_HOUSE = re.compile(r"(?<![0-9])([0-9]{1,5})(?![0-9])")


def numbered(values: Sequence[str]) -> Numbered:
    """A value without a number (fr_FR writes some streets bare) gets one where most of the
    locale's values hold theirs: before the street or after it."""
    found = [_HOUSE.search(v) for v in values]
    leading = sum(1 for m in found if m is not None and m.start() == 0)
    before = leading * 2 > sum(1 for m in found if m is not None)
    head, digits, tail = [], [], []
    for value, m in zip(values, found, strict=True):
        if m is None and any(found):
            head.append("" if before else value + " ")
            digits.append(2)
            tail.append(" " + value if before else "")
        elif m is None:
            head.append(value)
            digits.append(0)
            tail.append("")
        else:
            head.append(value[: m.start()])
            digits.append(len(m.group(1)))
            tail.append(value[m.end() :])
    return Numbered(
        np.array(head, dtype=object), np.array(digits, dtype=np.int64), np.array(tail, dtype=object)
    )


@lru_cache(maxsize=1)
def _number_texts() -> np.ndarray:
    return np.array([str(i) for i in range(100_000)], dtype=object)


_LOW = np.array([0, 1, 10, 100, 1000, 10_000], dtype=np.int64)
_SPAN = np.array([1, 9, 90, 900, 9000, 90_000], dtype=np.int64)


def fill_number(t: Numbered, idx: np.ndarray, keys: np.ndarray) -> list[str]:
    """The values of rows `idx`, each with its number drawn from the row's key (a street and an
    address field of one object given the same keys show the same house number)."""
    k = t.digits[idx]
    number = _number_texts()[_LOW[k] + keys % _SPAN[k]]
    number[k == 0] = ""
    texts: list[str] = (t.head[idx] + number + t.tail[idx]).tolist()
    return texts


def phone_kept_digits(number: str, calling_code: str) -> int:
    """Digits of a phone number that name its country and area: an international prefix
    (+49 / 0049 / 001) and three more (the area code or a mobile prefix, a trunk 0 included)."""
    text = number.lstrip()
    if text.startswith("+"):
        return len(calling_code) + 3
    digits = "".join(ch for ch in text if ch.isdigit())
    if digits.startswith("00"):
        return 2 + len(calling_code) + 3
    return 3


# -- text: sentences of the locale's lorem words ---------------------------------------------


@dataclass(frozen=True)
class Lorem:
    """A locale's lorem words as sentence pieces: openings (a capitalised word and up to two
    more), middles and endings (one to three words, the last with the sentence's stop). A
    sentence is one of each: 3 to 9 words, three draws instead of one per word, and about
    CHUNKS ** 3 sentences to draw from."""

    start: np.ndarray
    middle: np.ndarray
    end: np.ndarray
    connector: str


CHUNKS = 4096


def lorem(words: Sequence[str], connector: str, stop: str, seed: int) -> Lorem:
    kept = [w for w in words if w and "\n" not in w] or ["lorem"]
    rng = np.random.default_rng(seed)
    pool = np.array(kept, dtype=object)

    def pieces(first: bool, last: bool) -> np.ndarray:
        out = np.empty(CHUNKS, dtype=object)
        lengths = rng.integers(1, 4, size=CHUNKS).tolist()
        for i, k in enumerate(lengths):
            ws = pool[rng.integers(0, len(pool), size=k)].tolist()
            if first:
                ws[0] = ws[0][:1].upper() + ws[0][1:]
            out[i] = connector.join(ws) + (stop if last else connector)
        return out

    return Lorem(pieces(True, False), pieces(False, False), pieces(False, True), connector)


def sentences(lo: Lorem, rng: np.random.Generator, n: int, per_text: tuple[int, int]) -> list[str]:
    """n texts of `per_text` sentences (an inclusive range)."""
    if n <= 0:
        return []

    def one() -> np.ndarray:
        picks = rng.integers(0, CHUNKS, size=(3, n))
        out: np.ndarray = lo.start[picks[0]] + lo.middle[picks[1]] + lo.end[picks[2]]
        return out

    out = one()
    if per_text[1] > 1:
        counts = rng.integers(per_text[0], per_text[1] + 1, size=n)
        for k in range(2, per_text[1] + 1):
            rows = np.flatnonzero(counts >= k)
            more = one()
            out[rows] = out[rows] + (lo.connector + more[rows])
    texts: list[str] = out.tolist()
    return texts


# -- a company: one of the locale's formats filled with family names ------------------------


@dataclass(frozen=True)
class Templates:
    """Texts with SLOT marks, split at them: parts[:, k] is the text before slot k+1."""

    parts: np.ndarray  # (P, S + 1) object
    slots: np.ndarray  # (P,) int: marks in each template


def slot_templates(texts: Sequence[str]) -> Templates:
    split = [t.split(SLOT) for t in texts] or [[""]]
    width = max(len(s) for s in split)
    parts = np.full((len(split), width), "", dtype=object)
    for r, pieces in enumerate(split):
        parts[r, : len(pieces)] = pieces
    return Templates(parts, np.array([len(s) - 1 for s in split], dtype=np.int64))


def fill_slots(t: Templates, names: np.ndarray, rng: np.random.Generator, n: int) -> list[str]:
    """n texts: a template each, its slots filled with names drawn from `names`."""
    which = rng.integers(0, len(t.parts), size=n)
    parts = t.parts[which]
    slots = t.slots[which]
    out = parts[:, 0].copy()
    for k in range(1, parts.shape[1]):
        drawn = names[rng.integers(0, len(names), size=n)]
        rows = np.flatnonzero(slots >= k)
        out[rows] = out[rows] + drawn[rows] + parts[rows, k]
    texts: list[str] = out.tolist()
    return texts
