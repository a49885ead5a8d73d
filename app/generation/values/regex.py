"""Regex-to-string generation from the pattern's syntax tree (Python `re` syntax).
Design notes: docs/generation.md."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from app.generation.caching import short_key_cache
from app.generation.limits import MAX_FIELD_CHARS
from app.generation.values.charsets import (
    CATEGORY_SETS,
    Intervals,
    intersect_intervals,
    negate_intervals,
    normalise_intervals,
    preferred_intervals,
)
from app.generation.values.regex_nodes import (
    FILLER,
    RxAlt,
    RxGen,
    RxLit,
    RxRep,
    RxSeq,
    RxSet,
    capped,
    generate_exact_lengths,
    steerable,
    within,
)

if TYPE_CHECKING:  # the stubs know the regex parser by its old public names
    import sre_constants as sre_c
    import sre_parse as sre_p
else:  # the same modules (sre_* re-export them), without their deprecation warning
    import re._constants as sre_c
    import re._parser as sre_p

# how far an unbounded repeat (`*`, `+`, `{2,}`) may grow beyond its minimum
UNBOUNDED_EXTRA = 8
# a bounded repeat spread wider than this is drawn from [min, min + BOUNDED_SPREAD] only
BOUNDED_SPREAD = 32
CATEGORY_SETS[sre_c.CATEGORY_NOT_DIGIT] = negate_intervals(CATEGORY_SETS[sre_c.CATEGORY_DIGIT])
CATEGORY_SETS[sre_c.CATEGORY_NOT_SPACE] = negate_intervals(CATEGORY_SETS[sre_c.CATEGORY_SPACE])
CATEGORY_SETS[sre_c.CATEGORY_NOT_WORD] = negate_intervals(CATEGORY_SETS[sre_c.CATEGORY_WORD])


class UnsupportedPattern(ValueError):
    """The pattern uses a construct generation cannot honour."""


class PatternTooLong(UnsupportedPattern):
    """The pattern's shortest match is longer than a value may be (MAX_FIELD_CHARS): drawing it
    would cost the memory of that many characters per record (`[a-z]{3000000}`: 2.6 GB for three)."""

    def __init__(self, shortest: int) -> None:
        super().__init__(
            f"it matches nothing shorter than {shortest:,} characters; a value may have at most "
            f"{MAX_FIELD_CHARS:,}"
        )
        self.shortest = shortest


@dataclass
class _Parsed:
    gen: RxGen
    exact: bool  # generation provably matches (no boundaries / flags / mid anchors to verify)
    anchored_start: bool
    anchored_end: bool
    assertions: tuple[str, ...] = ()  # "lookahead" / "lookbehind": values are checked, not built


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
            if av not in CATEGORY_SETS:
                raise UnsupportedPattern(f"character category {av} is not supported")
            iv.extend(CATEGORY_SETS[av])
        else:
            raise UnsupportedPattern(f"{op} inside a character class is not supported")
    iv = normalise_intervals(iv)
    if negate:
        iv = negate_intervals(iv)
        if ignore_case:
            # a negated class under IGNORECASE excludes both cases; drop letters to stay safe
            iv = intersect_intervals(iv, negate_intervals([(0x41, 0x5A), (0x61, 0x7A)]))
    return iv


def _set_gen(iv: Intervals, alphabet: Intervals | None = None) -> RxSet:
    if alphabet is not None:
        # only where the alphabet leaves something: an empty set would make the pattern
        # ungeneratable, while its own characters may still be acceptable (e.g. inside `%..`)
        iv = intersect_intervals(iv, alphabet) or iv
    chosen = preferred_intervals(iv)
    if not chosen:
        raise UnsupportedPattern("a character class matches no character that can be written")
    return RxSet(chosen)


class _Builder:
    def __init__(self, flags: int, alphabet: Intervals | None = None) -> None:
        self.flags = flags
        self.alphabet = alphabet
        self.exact = not (flags & (re.IGNORECASE | re.MULTILINE | re.VERBOSE))
        self.assertions: list[str] = []  # lookahead / lookbehind kinds met (checked, not built)

    def seq(self, sub: list, top: bool = False) -> RxGen:
        items: list[RxGen] = []
        last = len(sub) - 1
        for pos, (op, av) in enumerate(sub):
            g = self.item(op, av, first=top and pos == 0, last=top and pos == last)
            if g is not None:
                items.append(g)
        # merge adjacent literals: fewer, wider matrix pieces
        merged: list[RxGen] = []
        for g in items:
            if isinstance(g, RxLit) and merged and isinstance(merged[-1], RxLit):
                merged[-1] = RxLit(merged[-1].text + g.text)
            else:
                merged.append(g)
        return merged[0] if len(merged) == 1 else RxSeq(merged)

    def item(self, op: object, av: Any, first: bool, last: bool) -> RxGen | None:
        ic = bool(self.flags & re.IGNORECASE)
        if op is sre_c.LITERAL:
            return RxLit(chr(av))
        if op is sre_c.NOT_LITERAL:
            return _set_gen(negate_intervals([(av, av)]), self.alphabet)
        if op is sre_c.ANY:
            return _set_gen(negate_intervals([(0x0A, 0x0A)]), self.alphabet)
        if op is sre_c.IN:
            return _set_gen(_set_from_in(av, ic), self.alphabet)
        if op is sre_c.BRANCH:
            return RxAlt([self.seq(list(b)) for b in av[1]])
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
            rep = RxRep(sub, lo, hi)
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
            # lookahead / lookbehind: drawn from the pattern without the assertion, every value
            # then checked against the whole pattern and re-drawn (within the caller's budget); a
            # positive lookbehind is drawn in place, so the text it looks for precedes what follows
            direction, sub = av
            self.exact = False
            self.assertions.append("lookahead" if direction == 1 else "lookbehind")
            if op is sre_c.ASSERT and direction == -1:
                return self.seq(list(sub))
            return None
        raise UnsupportedPattern(f"the regex construct {op} is not supported")


def _is_anchor(item: tuple[Any, Any], which: tuple) -> bool:
    return item[0] is sre_c.AT and item[1] in which


@short_key_cache(maxsize=1024)
def _parse(pattern: str, alphabet: tuple[tuple[int, int], ...] | None = None) -> _Parsed:
    try:
        tree = sre_p.parse(pattern)
    except re.error as exc:
        raise UnsupportedPattern(f"the pattern does not compile: {exc}") from None
    items = list(tree.data)
    # before building anything: the shortest match from the syntax tree alone (capped by `re` at
    # 2**32 - 2, far above the limit)
    shortest = tree.getwidth()[0]
    if shortest > MAX_FIELD_CHARS:
        raise PatternTooLong(shortest)
    b = _Builder(tree.state.flags, list(alphabet) if alphabet is not None else None)
    gen = b.seq(items, top=True)
    if gen.max_len > MAX_FIELD_CHARS:
        # the repeats may draw longer strings than a value may have: drawn within the limit
        # (`(\w{1,63}\.){1,126}` draws at most 4,096 characters, not 8,000)
        gen = within(gen, MAX_FIELD_CHARS) or gen
    start = bool(items) and _is_anchor(items[0], (sre_c.AT_BEGINNING, sre_c.AT_BEGINNING_STRING))
    end = bool(items) and _is_anchor(items[-1], (sre_c.AT_END, sre_c.AT_END_STRING))
    return _Parsed(gen, b.exact, start, end, tuple(dict.fromkeys(b.assertions)))


@short_key_cache(maxsize=4096)
def shortest_match(pattern: str) -> int:
    """The length of the pattern's shortest match (0 when it does not parse: that is reported
    where the pattern is used)."""
    try:
        return int(sre_p.parse(pattern).getwidth()[0])
    except (re.error, RecursionError, OverflowError):
        return 0


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


@short_key_cache(maxsize=4096)
def _true_max(pattern: str) -> int | None:
    """The pattern's longest match, None when unbounded (one parse per pattern, however many
    fields share it)."""
    full_max = sre_p.parse(pattern).getwidth()[1]
    return None if full_max >= sre_c.MAXREPEAT else int(full_max)


@short_key_cache(maxsize=4096)
def _inner_may_match_newline(pattern: str) -> bool:
    """Whether the pattern without its outer anchors may match a newline."""
    return _may_match_newline(_without_outer_anchors(list(sre_p.parse(pattern).data)))


class RegexGenerator:
    """Generates columns of strings matching one pattern (full match when `anchored`)."""

    def __init__(self, pattern: str, *, anchored: bool, alphabet: Intervals | None = None) -> None:
        parsed = _parse(pattern, tuple(normalise_intervals(alphabet)) if alphabet is not None else None)
        self.pattern = pattern
        self.gen = parsed.gen
        self.exact = parsed.exact
        self.assertions = parsed.assertions
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
        if (
            self.fixed_ends
            and not self.compiled.flags & (re.MULTILINE | re.DOTALL)
            and not _inner_may_match_newline(pattern)
        ):
            body: str | None = pattern
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
            if self.true_max is not None and self.true_max < min_len:
                return f"the pattern allows at most {self.true_max} characters but minLength is {min_len}"
            # repeats are drawn short (UNBOUNDED_EXTRA, BOUNDED_SPREAD), but lengths of a pattern
            # of literals, sets and their repeats are steered to any target (`[a-z]*`, minLength 4000)
            if not steerable(self.gen):
                return (
                    f"the pattern's values are drawn at most {self.max_len} characters long but "
                    f"minLength is {min_len}"
                )
        return None

    def generate(
        self, rng: np.random.Generator, n: int, min_len: int = 0, max_len: int | None = None
    ) -> list[str]:
        lo, hi = min_len, max_len
        if lo > self.min_len or (hi is not None and hi < self.max_len):
            # a length window narrower than the pattern's: steer lengths exactly where possible
            top = hi if hi is not None else max(lo, self.min_len) + UNBOUNDED_EXTRA
            top = min(top, max(lo, MAX_FIELD_CHARS))  # a maxLength of 10**9 draws no such lengths
            a, b = max(lo, self.min_len), top if self.true_max is None else min(top, self.true_max)
            if a <= b:
                steered = generate_exact_lengths(self.gen, rng, rng.integers(a, b + 1, size=n))
                if steered is not None:
                    return codes_to_strings(steered)
        gen = self.gen
        if hi is not None and gen.max_len > hi:
            gen = capped(gen, hi - gen.min_len)
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
                        extra = "".join(map(chr, FILLER.pick(rng, (lo - len(s),))))
                        out[r] = s + extra if self.pad_end else extra + s
                        bad[r] = hi is not None and len(out[r]) > hi
        # rows still outside the window are returned as drawn: the caller's length check rejects them
        return out

    def count(self) -> int:
        return self.gen.count()

    def nth(self, k: int) -> str:
        return self.gen.nth(k)
