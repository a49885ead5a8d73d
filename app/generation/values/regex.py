"""Regex-to-string generation from the pattern's syntax tree (Python `re` syntax).

A pattern is parsed once with `re._parser` into a small tree (literal, character set, sequence,
alternation, repeat) that generates a whole column at a time: every node returns a code-point
matrix (one row per value, zero padding after each row's length) plus the row lengths, so a
column of 4,096 strings costs a handful of NumPy operations, never a backtracking search.
Character sets are interval lists picked by weighted offset, so `[^"]` or `[\u4e00-\u9fa5]`
cost the same as `[0-9]`. Broad sets (`.`, negated classes, `\\S`) draw printable ASCII so
values stay readable and legal in every output format; characters illegal in XML 1.0 and
surrogates are never produced.

An `alphabet` (interval list) narrows every character set further, e.g. to the characters a
URI may hold when the field also has `format: uri`: `.+` then draws no backtick or bare `%`.
A set with nothing left in the alphabet keeps its own characters (the caller's format check
rejects what it draws, and fails the field when nothing passes).

Unsupported (see `unsupported_reason`): backreferences, lookahead/lookbehind, conditional
groups. Word boundaries and mid-pattern anchors generate nothing and are verified afterwards.

`RegexGenerator.generate(rng, n, min_len, max_len)` honours length bounds together with the
pattern; `RegexGenerator.nth(k)` enumerates the (capped) language for `unique` values.
"""

from __future__ import annotations

import re
import re._constants as sre_c
import re._parser as sre_p
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

# how far an unbounded repeat (`*`, `+`, `{2,}`) may grow beyond its minimum
UNBOUNDED_EXTRA = 8
# a bounded repeat spread wider than this is drawn from [min, min + BOUNDED_SPREAD] only
BOUNDED_SPREAD = 32
MAX_CODEPOINT = 0x10FFFF

Intervals = list[tuple[int, int]]  # sorted, disjoint, inclusive


def _normalise(iv: Intervals) -> Intervals:
    out: Intervals = []
    for lo, hi in sorted(iv):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _negate(iv: Intervals) -> Intervals:
    out: Intervals = []
    prev = 0
    for lo, hi in _normalise(iv):
        if lo > prev:
            out.append((prev, lo - 1))
        prev = hi + 1
    if prev <= MAX_CODEPOINT:
        out.append((prev, MAX_CODEPOINT))
    return out


def _intersect(a: Intervals, b: Intervals) -> Intervals:
    out: Intervals = []
    for lo1, hi1 in a:
        for lo2, hi2 in b:
            lo, hi = max(lo1, lo2), min(hi1, hi2)
            if lo <= hi:
                out.append((lo, hi))
    return _normalise(out)


def _size(iv: Intervals) -> int:
    return sum(hi - lo + 1 for lo, hi in iv)


PRINTABLE_ASCII: Intervals = [(0x20, 0x7E)]
# XML 1.0 Char minus controls (tab/newline/CR are legal XML but are normalised away in attributes)
_LEGAL: Intervals = [(0x20, 0xD7FF), (0xE000, 0xFFFD), (0x10000, MAX_CODEPOINT)]
_CATEGORY: dict[object, Intervals] = {
    sre_c.CATEGORY_DIGIT: [(0x30, 0x39)],
    sre_c.CATEGORY_SPACE: [(0x09, 0x0D), (0x20, 0x20)],
    sre_c.CATEGORY_WORD: [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)],
}
_CATEGORY[sre_c.CATEGORY_NOT_DIGIT] = _negate(_CATEGORY[sre_c.CATEGORY_DIGIT])
_CATEGORY[sre_c.CATEGORY_NOT_SPACE] = _negate(_CATEGORY[sre_c.CATEGORY_SPACE])
_CATEGORY[sre_c.CATEGORY_NOT_WORD] = _negate(_CATEGORY[sre_c.CATEGORY_WORD])


def _preferred(iv: Intervals) -> Intervals:
    """The characters actually drawn for a set: legal ones, printable ASCII when the set is broad."""
    legal = _intersect(iv, _LEGAL)
    if not legal:
        # only controls left (e.g. `[\t\n]`): tab/newline are legal XML text, keep them
        legal = _intersect(iv, [(0x09, 0x0A), (0x0D, 0x0D)])
    ascii_part = _intersect(legal, PRINTABLE_ASCII)
    if ascii_part and (_size(legal) > 200 or ascii_part == legal):
        return ascii_part
    return legal


class UnsupportedPattern(ValueError):
    """The pattern uses a construct generation cannot honour."""


# ---------------------------------------------------------------------------------------------
# the generation tree


class _Gen:
    min_len: int
    max_len: int  # after capping repeats

    def gen(self, rng: np.random.Generator, n: int, mode: int) -> tuple[np.ndarray, np.ndarray]:
        """(codes (n, w) uint32, lengths (n,)); mode 0 random, -1 shortest, +1 longest."""
        raise NotImplementedError

    def count(self) -> int:
        raise NotImplementedError

    def nth(self, k: int) -> str:
        raise NotImplementedError


@dataclass
class _Set(_Gen):
    starts: np.ndarray
    sizes: np.ndarray
    cum: np.ndarray
    total: int

    def __init__(self, iv: Intervals) -> None:
        self.starts = np.array([lo for lo, _ in iv], dtype=np.int64)
        self.sizes = np.array([hi - lo + 1 for lo, hi in iv], dtype=np.int64)
        self.cum = np.cumsum(self.sizes)
        self.total = int(self.cum[-1])
        self.min_len = self.max_len = 1

    def pick(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        r = rng.integers(0, self.total, size=shape)
        if len(self.starts) == 1:
            return (r + self.starts[0]).astype(np.uint32)
        k = np.searchsorted(self.cum, r, side="right")
        return (self.starts[k] + r - (self.cum[k] - self.sizes[k])).astype(np.uint32)

    def gen(self, rng: np.random.Generator, n: int, mode: int) -> tuple[np.ndarray, np.ndarray]:
        return self.pick(rng, (n, 1)), np.ones(n, dtype=np.int64)

    def count(self) -> int:
        return self.total

    def nth(self, k: int) -> str:
        i = int(np.searchsorted(self.cum, k, side="right"))
        return chr(int(self.starts[i]) + k - int(self.cum[i] - self.sizes[i]))


_FILLER = _Set([(0x61, 0x7A)])


class _Lit(_Gen):
    def __init__(self, text: str) -> None:
        self.text = text
        self.codes = np.array([ord(c) for c in text], dtype=np.uint32)
        self.min_len = self.max_len = len(text)

    def gen(self, rng: np.random.Generator, n: int, mode: int) -> tuple[np.ndarray, np.ndarray]:
        return np.broadcast_to(self.codes, (n, len(self.codes))), np.full(n, len(self.codes), dtype=np.int64)

    def count(self) -> int:
        return 1

    def nth(self, k: int) -> str:
        return self.text


def _concat(parts: list[tuple[np.ndarray, np.ndarray]], n: int) -> tuple[np.ndarray, np.ndarray]:
    parts = [p for p in parts if p[0].shape[1]]
    if not parts:
        return np.zeros((n, 0), dtype=np.uint32), np.zeros(n, dtype=np.int64)
    width = sum(p[0].shape[1] for p in parts)
    out = np.zeros((n, width), dtype=np.uint32)
    lengths = np.zeros(n, dtype=np.int64)
    col = 0
    fixed = True  # all previous parts had a constant length: plain slice assignment
    rows = np.arange(n)[:, None]
    for codes, lens in parts:
        w = codes.shape[1]
        if fixed:
            out[:, col:col + w] = codes
            col += w
        else:
            idx = lengths[:, None] + np.arange(w)[None, :]
            # padding zeros land after the row's content, so they never clobber earlier parts
            out[rows, idx] = codes
        lengths = lengths + lens
        if fixed and not (lens == w).all():
            fixed = False
    return out, lengths


class _Seq(_Gen):
    def __init__(self, items: list[_Gen]) -> None:
        self.items = items
        self.min_len = sum(i.min_len for i in items)
        self.max_len = sum(i.max_len for i in items)

    def gen(self, rng: np.random.Generator, n: int, mode: int) -> tuple[np.ndarray, np.ndarray]:
        return _concat([i.gen(rng, n, mode) for i in self.items], n)

    def count(self) -> int:
        c = 1
        for i in self.items:
            c *= i.count()
        return c

    def nth(self, k: int) -> str:
        out = []
        for i in reversed(self.items):
            c = i.count()
            k, r = divmod(k, c)
            out.append(i.nth(r))
        return "".join(reversed(out))


class _Alt(_Gen):
    def __init__(self, branches: list[_Gen]) -> None:
        self.branches = branches
        self.min_len = min(b.min_len for b in branches)
        self.max_len = max(b.max_len for b in branches)

    def gen(self, rng: np.random.Generator, n: int, mode: int) -> tuple[np.ndarray, np.ndarray]:
        if mode < 0:
            choice = np.full(n, int(np.argmin([b.min_len for b in self.branches])))
        elif mode > 0:
            choice = np.full(n, int(np.argmax([b.max_len for b in self.branches])))
        else:
            choice = rng.integers(0, len(self.branches), size=n)
        width = max(b.max_len for b in self.branches)
        out = np.zeros((n, width), dtype=np.uint32)
        lengths = np.zeros(n, dtype=np.int64)
        for b, branch in enumerate(self.branches):
            rows = np.flatnonzero(choice == b)
            if rows.size:
                codes, lens = branch.gen(rng, rows.size, mode)
                out[rows, :codes.shape[1]] = codes
                lengths[rows] = lens
        return out, lengths

    def count(self) -> int:
        return sum(b.count() for b in self.branches)

    def nth(self, k: int) -> str:
        for b in self.branches:
            c = b.count()
            if k < c:
                return b.nth(k)
            k -= c
        raise IndexError(k)


class _Rep(_Gen):
    full_hi: int | None = None  # the pattern's own upper bound (None: unbounded)

    def __init__(self, sub: _Gen, lo: int, hi: int) -> None:
        self.sub, self.lo, self.hi = sub, lo, hi
        self.full_hi = hi
        self.min_len = sub.min_len * lo
        self.max_len = sub.max_len * hi

    def _counts(self, rng: np.random.Generator, n: int, mode: int) -> np.ndarray:
        if mode < 0:
            return np.full(n, self.lo)
        if mode > 0:
            return np.full(n, self.hi)
        return rng.integers(self.lo, self.hi + 1, size=n)

    def gen(self, rng: np.random.Generator, n: int, mode: int) -> tuple[np.ndarray, np.ndarray]:
        counts = self._counts(rng, n, mode)
        if isinstance(self.sub, _Set):
            codes = self.sub.pick(rng, (n, self.hi))
            codes[np.arange(self.hi)[None, :] >= counts[:, None]] = 0
            return codes, counts.astype(np.int64)
        parts = []
        for j in range(self.hi):
            codes, lens = self.sub.gen(rng, n, mode)
            keep = counts > j
            if not keep.all():
                codes = np.where(keep[:, None], codes, 0).astype(np.uint32)
                lens = np.where(keep, lens, 0)
            parts.append((codes, lens))
        return _concat(parts, n)

    def count(self) -> int:
        c = self.sub.count()
        return sum(c**L for L in range(self.lo, self.hi + 1))

    def nth(self, k: int) -> str:
        c = self.sub.count()
        for L in range(self.lo, self.hi + 1):
            block = c**L
            if k < block:
                out = []
                for _ in range(L):
                    k, r = divmod(k, c)
                    out.append(self.sub.nth(r))
                return "".join(out)
            k -= block
        raise IndexError(k)


def _capped(gen: _Gen, slack: int) -> _Gen:
    """A copy of the tree where no repeat alone can add more than `slack` characters beyond the
    pattern's minimum: rejection sampling against a maxLength then rarely misses."""
    if isinstance(gen, _Seq):
        return _Seq([_capped(i, slack) for i in gen.items])
    if isinstance(gen, _Alt):
        return _Alt([_capped(b, slack) for b in gen.branches])
    if isinstance(gen, _Rep):
        sub = _capped(gen.sub, slack)
        width = max(sub.max_len, 1)
        hi = max(gen.lo, min(gen.hi, gen.lo + slack // width))
        rep = _Rep(sub, gen.lo, hi)
        rep.full_hi = min(gen.full_hi, hi) if gen.full_hi is not None else hi
        return rep
    return gen


def _fit_parts(gen: _Gen) -> list[_Gen] | None:
    """The items of a pattern whose length can be steered exactly: literals, single-character
    sets and repeats of a single-character set in sequence; None for anything else."""
    items = gen.items if isinstance(gen, _Seq) else [gen]
    for it in items:
        if not (isinstance(it, (_Lit, _Set)) or (isinstance(it, _Rep) and isinstance(it.sub, _Set))):
            return None
    return items


def generate_exact_lengths(gen: _Gen, rng: np.random.Generator, target: np.ndarray) -> np.ndarray | None:
    """Code points of strings of exactly `target[i]` characters each (None when not steerable).
    The slack above the fixed minimum is split over the repeats, each taking a random share
    within what the repeats after it can still absorb, so every row lands on its target."""
    items = _fit_parts(gen)
    if items is None:
        return None
    n = len(target)
    caps = []
    for it in items:
        if isinstance(it, _Rep):
            top = it.full_hi if it.full_hi is not None else 1 << 30
            caps.append(top - it.lo)
        else:
            caps.append(0)
    base = sum(it.min_len for it in items)
    remaining = target.astype(np.int64) - base
    after = np.cumsum(caps[::-1])[::-1]  # capacity of each item and all the ones after it
    if (remaining < 0).any() or (remaining > after[0]).any():
        return None
    parts = []
    for i, it in enumerate(items):
        if isinstance(it, _Lit):
            parts.append((np.broadcast_to(it.codes, (n, len(it.codes))), np.full(n, len(it.codes))))
            continue
        if isinstance(it, _Set):
            parts.append((it.pick(rng, (n, 1)), np.ones(n, dtype=np.int64)))
            continue
        later = after[i + 1] if i + 1 < len(items) else 0
        low = np.maximum(0, remaining - later)
        high = np.minimum(remaining, caps[i])
        extra = rng.integers(low, high + 1)
        remaining = remaining - extra
        counts = it.lo + extra
        width = int(counts.max()) if n else 0
        codes = it.sub.pick(rng, (n, max(width, 1)))
        codes[np.arange(codes.shape[1])[None, :] >= counts[:, None]] = 0
        parts.append((codes, counts))
    codes, _lens = _concat(parts, n)
    return codes


# ---------------------------------------------------------------------------------------------
# parsing


@dataclass
class _Parsed:
    gen: _Gen
    exact: bool  # generation provably matches (no boundaries / flags / mid anchors to verify)
    anchored_start: bool
    anchored_end: bool


def _set_from_in(items: list, ignore_case: bool) -> Intervals:
    iv: Intervals = []
    negate = False
    for op, av in items:
        if op is sre_c.NEGATE:
            negate = True
        elif op is sre_c.LITERAL:
            iv.append((av, av))
        elif op is sre_c.RANGE:
            iv.append((av[0], av[1]))
        elif op is sre_c.CATEGORY:
            if av not in _CATEGORY:
                raise UnsupportedPattern(f"character category {av} is not supported")
            iv.extend(_CATEGORY[av])
        else:
            raise UnsupportedPattern(f"{op} inside a character class is not supported")
    iv = _normalise(iv)
    if negate:
        iv = _negate(iv)
        if ignore_case:
            # a negated class under IGNORECASE excludes both cases; drop letters to stay safe
            iv = _intersect(iv, _negate([(0x41, 0x5A), (0x61, 0x7A)]))
    return iv


def _set_gen(iv: Intervals, alphabet: Intervals | None = None) -> _Set:
    if alphabet is not None:
        # only where the alphabet leaves something: an empty set would make the pattern
        # ungeneratable, while its own characters may still be acceptable (e.g. inside `%..`)
        iv = _intersect(iv, alphabet) or iv
    chosen = _preferred(iv)
    if not chosen:
        raise UnsupportedPattern("a character class matches no character that can be written")
    return _Set(chosen)


class _Builder:
    def __init__(self, flags: int, alphabet: Intervals | None = None) -> None:
        self.flags = flags
        self.alphabet = alphabet
        self.exact = not (flags & (re.IGNORECASE | re.MULTILINE | re.VERBOSE))

    def seq(self, sub: list, top: bool = False) -> _Gen:
        items: list[_Gen] = []
        last = len(sub) - 1
        for pos, (op, av) in enumerate(sub):
            g = self.item(op, av, first=top and pos == 0, last=top and pos == last)
            if g is not None:
                items.append(g)
        # merge adjacent literals: fewer, wider matrix pieces
        merged: list[_Gen] = []
        for g in items:
            if isinstance(g, _Lit) and merged and isinstance(merged[-1], _Lit):
                merged[-1] = _Lit(merged[-1].text + g.text)
            else:
                merged.append(g)
        return merged[0] if len(merged) == 1 else _Seq(merged)

    def item(self, op: object, av: Any, first: bool, last: bool) -> _Gen | None:
        ic = bool(self.flags & re.IGNORECASE)
        if op is sre_c.LITERAL:
            return _Lit(chr(av))
        if op is sre_c.NOT_LITERAL:
            return _set_gen(_negate([(av, av)]), self.alphabet)
        if op is sre_c.ANY:
            return _set_gen(_negate([(0x0A, 0x0A)]), self.alphabet)
        if op is sre_c.IN:
            return _set_gen(_set_from_in(av, ic), self.alphabet)
        if op is sre_c.BRANCH:
            return _Alt([self.seq(list(b)) for b in av[1]])
        if op is sre_c.SUBPATTERN:
            _group, add_flags, del_flags, p = av
            if add_flags or del_flags:
                self.exact = False
            return self.seq(list(p))
        if op is sre_c.ATOMIC_GROUP:
            self.exact = False
            return self.seq(list(av))
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT):
            lo, hi, p = av
            if op is sre_c.POSSESSIVE_REPEAT:
                self.exact = False
            sub = self.seq(list(p))
            full_hi = None if hi == sre_c.MAXREPEAT else hi
            if hi == sre_c.MAXREPEAT:
                hi = lo + UNBOUNDED_EXTRA
            elif hi - lo > BOUNDED_SPREAD:
                hi = lo + BOUNDED_SPREAD
            if sub.max_len == 0:
                return sub
            rep = _Rep(sub, lo, hi)
            rep.full_hi = full_hi
            return rep
        if op is sre_c.AT:
            if av in (sre_c.AT_BEGINNING, sre_c.AT_BEGINNING_STRING) and first:
                return None
            if av in (sre_c.AT_END, sre_c.AT_END_STRING) and last:
                return None
            self.exact = False  # boundaries / inner anchors: verified after generation
            return None
        if op in (sre_c.GROUPREF, sre_c.GROUPREF_EXISTS):
            raise UnsupportedPattern("backreferences cannot be generated")
        if op in (sre_c.ASSERT, sre_c.ASSERT_NOT):
            direction = av[0]
            kind = "lookahead" if direction == 1 else "lookbehind"
            raise UnsupportedPattern(f"{kind} assertions cannot be generated")
        raise UnsupportedPattern(f"the regex construct {op} is not supported")


def _is_anchor(item: tuple[Any, Any], which: tuple) -> bool:
    return item[0] is sre_c.AT and item[1] in which


@lru_cache(maxsize=1024)
def _parse(pattern: str, alphabet: tuple[tuple[int, int], ...] | None = None) -> _Parsed:
    try:
        tree = sre_p.parse(pattern)
    except re.error as exc:
        raise UnsupportedPattern(f"the pattern does not compile: {exc}") from None
    items = list(tree)
    b = _Builder(tree.state.flags, list(alphabet) if alphabet is not None else None)
    gen = b.seq(items, top=True)
    start = bool(items) and _is_anchor(items[0], (sre_c.AT_BEGINNING, sre_c.AT_BEGINNING_STRING))
    end = bool(items) and _is_anchor(items[-1], (sre_c.AT_END, sre_c.AT_END_STRING))
    return _Parsed(gen, b.exact, start, end)


def unsupported_reason(pattern: str) -> str | None:
    """None when strings can be generated for this Python-syntax pattern, else one sentence why not."""
    try:
        _parse(pattern)
    except UnsupportedPattern as exc:
        return f"{exc}."
    except RecursionError:
        return "the pattern is nested too deeply."
    return None


def _may_match_newline(items: list) -> bool:
    for op, av in items:
        if op is sre_c.LITERAL and av == 0x0A:
            return True
        if op is sre_c.NOT_LITERAL and av != 0x0A:
            return True
        if op is sre_c.IN:
            iv = _set_from_in(av, False)
            if any(lo <= 0x0A <= hi for lo, hi in iv):
                return True
        elif op is sre_c.BRANCH:
            if any(_may_match_newline(list(b)) for b in av[1]):
                return True
        elif op is sre_c.SUBPATTERN:
            if _may_match_newline(list(av[3])):
                return True
        elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT):
            if _may_match_newline(list(av[2])):
                return True
        elif op in (sre_c.ATOMIC_GROUP,):
            if _may_match_newline(list(av)):
                return True
        elif op in (sre_c.GROUPREF, sre_c.GROUPREF_EXISTS, sre_c.ASSERT, sre_c.ASSERT_NOT, sre_c.AT):
            return True  # not analysed: no shortcut
    return False


def _without_outer_anchors(items: list) -> list:
    if items and _is_anchor(items[0], (sre_c.AT_BEGINNING, sre_c.AT_BEGINNING_STRING)):
        items = items[1:]
    if items and _is_anchor(items[-1], (sre_c.AT_END, sre_c.AT_END_STRING)):
        items = items[:-1]
    return items


def _strip_anchors(pattern: str) -> str | None:
    """`^body$` -> `body` when the anchors are the pattern's own top-level first/last tokens."""
    if pattern.startswith("^") and pattern.endswith("$") and not pattern.endswith("\\$"):
        body = pattern[1:-1]
        try:
            re.compile(body)
        except re.error:
            return None
        return body
    return None


def _to_strings(codes: np.ndarray, lengths: np.ndarray) -> list[str]:
    return codes_to_strings(codes)


def codes_to_strings(codes: np.ndarray) -> list[str]:
    """(n, w) code points, zero-padded per row -> n strings."""
    if codes.shape[1] == 0:
        return [""] * codes.shape[0]
    codes = np.ascontiguousarray(codes, dtype=np.uint32)
    # a U<w> view drops the zero padding, which is exactly each row's content
    return codes.view(f"<U{codes.shape[1]}").ravel().tolist()


@lru_cache(maxsize=4096)
def _true_max(pattern: str) -> int | None:
    """The pattern's longest match, None when unbounded (one parse per pattern, however many
    fields share it)."""
    full_max = sre_p.parse(pattern).getwidth()[1]
    return None if full_max >= sre_c.MAXREPEAT else int(full_max)


@lru_cache(maxsize=4096)
def _inner_may_match_newline(pattern: str) -> bool:
    """Whether the pattern without its outer anchors may match a newline."""
    return _may_match_newline(_without_outer_anchors(list(sre_p.parse(pattern))))


class RegexGenerator:
    """Generates columns of strings matching one pattern (full match when `anchored`)."""

    def __init__(self, pattern: str, *, anchored: bool, alphabet: Intervals | None = None) -> None:
        parsed = _parse(pattern, tuple(_normalise(alphabet)) if alphabet is not None else None)
        self.pattern = pattern
        self.gen = parsed.gen
        self.exact = parsed.exact
        # an unanchored (search) pattern can be padded on a side it does not anchor
        self.pad_end = not anchored and not parsed.anchored_end
        self.pad_start = not anchored and not parsed.anchored_start and not self.pad_end
        self.compiled = re.compile(pattern)
        self.anchored = anchored
        self.starts_anchored = anchored or parsed.anchored_start
        self.ends_anchored = anchored or parsed.anchored_end
        self.min_len = self.gen.min_len
        self.max_len = self.gen.max_len
        # the language's true longest match (None: unbounded), before repeats were capped
        self.true_max = _true_max(pattern)
        self.fixed_ends = anchored or (parsed.anchored_start and parsed.anchored_end)
        # a whole column can be checked in one call when the pattern must match a full value and
        # can never match a newline: then "v1\nv2\n..." matches only split at the newlines
        self.blob_rx: re.Pattern[str] | None = None
        if self.fixed_ends and not self.compiled.flags & (re.MULTILINE | re.DOTALL) and \
                not _inner_may_match_newline(pattern):
            body = pattern
            if not anchored:  # ^...$ written in the pattern: strip them, the blob adds its own
                body = _strip_anchors(pattern)
            if body is not None:
                self.blob_rx = re.compile(f"(?:{body})(?:\n(?:{body}))*")

    def all_match(self, values: list[str]) -> bool | None:
        """True when every value matches, checked with ONE regex call over the joined column;
        None when that shortcut does not apply (the caller checks value by value)."""
        if self.blob_rx is None:
            return None
        if not values:
            return True
        blob = "\n".join(values)
        if blob.count("\n") != len(values) - 1:
            return None  # a value holds a newline itself: the split would be ambiguous
        return self.blob_rx.fullmatch(blob) is not None

    def matches(self, value: str) -> bool:
        m = self.compiled.fullmatch(value) if self.anchored else self.compiled.search(value)
        return m is not None

    def feasible(self, min_len: int, max_len: int | None) -> str | None:
        """None when lengths [min_len, max_len] are reachable with this pattern, else why not."""
        if max_len is not None and self.min_len > max_len:
            return f"the pattern needs at least {self.min_len} characters but maxLength is {max_len}"
        if min_len > self.max_len and not (self.pad_end or self.pad_start):
            return f"the pattern allows at most {self.max_len} characters but minLength is {min_len}"
        return None

    def generate(self, rng: np.random.Generator, n: int, min_len: int = 0,
                 max_len: int | None = None) -> list[str]:
        lo, hi = min_len, max_len
        if lo > self.min_len or (hi is not None and hi < self.max_len):
            # a length window narrower than the pattern's: steer lengths exactly where possible
            top = hi if hi is not None else max(lo, self.min_len) + UNBOUNDED_EXTRA
            a, b = max(lo, self.min_len), top if self.true_max is None else min(top, self.true_max)
            if a <= b:
                steered = generate_exact_lengths(self.gen, rng, rng.integers(a, b + 1, size=n))
                if steered is not None:
                    return codes_to_strings(steered)
        gen = self.gen
        if hi is not None and gen.max_len > hi:
            gen = _capped(gen, hi - gen.min_len)
        codes, lens = gen.gen(rng, n, 0)
        out = _to_strings(codes, lens)
        bad = (lens < lo) | ((lens > hi) if hi is not None else False)
        if np.any(bad):
            # redraw rows outside the length window, then fall back to the shortest/longest forms
            for mode in (0,) * 8 + (-1 if hi is not None else 1, 1):
                rows = np.flatnonzero(bad)
                if not rows.size:
                    break
                c2, l2 = gen.gen(rng, rows.size, mode)
                ok = (l2 >= lo) & ((l2 <= hi) if hi is not None else True)
                strs = _to_strings(c2, l2)
                for j, r in enumerate(rows):
                    if ok[j]:
                        out[r] = strs[j]
                        bad[r] = False
                        lens[r] = l2[j]
            if np.any(bad) and (self.pad_end or self.pad_start):
                for r in np.flatnonzero(bad):
                    s = out[r]
                    if len(s) < lo:
                        extra = "".join(map(chr, _FILLER.pick(rng, (lo - len(s),))))
                        out[r] = s + extra if self.pad_end else extra + s
                        bad[r] = hi is not None and len(out[r]) > hi
        # rows still outside the window are returned as drawn: the caller's length check rejects them
        return out

    def count(self) -> int:
        return self.gen.count()

    def nth(self, k: int) -> str:
        return self.gen.nth(k)
