"""String columns: realistic values first, facet-driven values when realism would break a facet.
Design notes: docs/generation.md."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from itertools import repeat
from operator import is_not, methodcaller
from typing import Any

import numpy as np

from app.generation.caching import MAX_KEY_CHARS
from app.generation.errors import GenerationError, Unsatisfiable
from app.generation.model import LeafContext, LeafSpec, LeafValues
from app.generation.values import category_values as cv
from app.generation.values import formats, vocab
from app.generation.values.charsets import Intervals
from app.generation.values.permutation import FeistelPermutation, base36
from app.generation.values.regex import RegexGenerator, UnsupportedPattern, codes_to_strings

Strategy = Callable[[LeafContext, int], list[str]]
_AT = methodcaller("partition", "@")  # (local part, "@", domain); ("name", "", "") without one
_ROUNDS = 4
_CODE_NAMES = ("code", "sku", "ref", "key", "token", "id", "number", "no", "serial", "hash")
# checked generators by field-independent key (`_facet_key`): large schemas repeat the same string
# facets thousands of times (UBL 2.1 Invoice: 118,000 string fields, 6 distinct facet sets), and
# building the regexes and strategies and checking them costs about 1.5 ms a field; a field whose
# key is here takes its twin's instead. Keys whose patterns hold more than MAX_KEY_CHARS in all are
# not kept; failures are not kept (their message names the field)
_CHECKED: dict[tuple[Any, ...], StringGenerator] = {}
_CHECKED_MAX = 4096
_UPPER_ALNUM_CODES = np.array([ord(ch) for ch in "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"], dtype=np.uint32)


def _chars(text: str) -> Intervals:
    return [(ord(ch), ord(ch)) for ch in text]


_ALNUM: Intervals = [(0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)]
# RFC 3986 unreserved + sub-delims + ':' '@' '/' '?': no '%' (only as %XX), '#' (once), '[' ']'
_URI_CHARS: Intervals = _ALNUM + _chars("-._~!$&'()*+,;=:@/?")
# RFC 3987 ucschar (BMP part) on top of the URI characters
_IRI_CHARS: Intervals = [*_URI_CHARS, (0xA0, 0xD7FF), (0xF900, 0xFDCF), (0xFDF0, 0xFFEF)]
# RFC 6570 literals exclude the apostrophe; '{' '}' are expressions, left to the pattern's literals
_TEMPLATE_CHARS: Intervals = _ALNUM + _chars("-._~!$&()*+,;=:@/?")
_HOST_CHARS: Intervals = _ALNUM + _chars("-.")
# characters that are literals in a regex (no brackets, groups, quantifiers, escapes, anchors)
_REGEX_LITERALS: Intervals = _ALNUM + _chars(" -_.,:;=!@#&~/%'\"<>`")
# formats whose values a pattern's `.`/`\S`/`[^...]` would break: the characters those classes
# are narrowed to, and the format is checked on every value as well
FORMAT_ALPHABETS: dict[str, Intervals] = {
    "uri": _URI_CHARS,
    "uri-reference": _URI_CHARS,
    "iri": _IRI_CHARS,
    "iri-reference": _IRI_CHARS,
    "uri-template": _TEMPLATE_CHARS,
    "hostname": _HOST_CHARS,
    "idn-hostname": _HOST_CHARS,
    "regex": _REGEX_LITERALS,
}


@cache
def _format_checker() -> Any:
    """jsonschema's format checks, imported only for a format a pattern may break (see above)."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator.FORMAT_CHECKER


def _fit_words(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    """Lorem words joined up to a drawn target length inside [lo, hi]: whole words while they fit
    (the first always, cut to the target when it alone is longer), padded with x up to lo, the
    first letter capitalised. Worked out on arrays of word lengths, then cut out of one joined
    string: a Python loop over the words cost ISO 20022's free-text fields a third of their time."""
    words = vocab.simple_pool(c.locale, "word")
    top = hi if hi is not None else max(lo, 24)
    top = min(top, max(lo, 60))
    target = c.rng.integers(lo, top + 1, size=n) if top >= lo else np.full(n, lo)
    picks = c.rng.integers(0, len(words), size=(n, _WORDS_DRAWN))
    if not n:
        return []
    lengths, both = _word_forms(words)
    # ends[i, k]: the length of row i's first k + 1 words joined by spaces (strictly increasing)
    ends = np.cumsum(lengths[picks], axis=1) + np.arange(_WORDS_DRAWN)
    taken = 1 + np.count_nonzero(ends[:, 1:] <= target[:, None], axis=1)
    cut = ends[np.arange(n), taken - 1]
    starts = np.zeros(n, dtype=np.int64)
    np.cumsum(cut[:-1] + 1, out=starts[1:])  # the rows' words, rows joined by a space too
    if both is not None:
        picks[:, 0] += len(words)  # first words from the capitalised half
    used = picks[np.arange(_WORDS_DRAWN) < taken[:, None]]
    text = " ".join((both if both is not None else words)[used].tolist())
    out = [text[a : a + k] for a, k in zip(starts.tolist(), cut.tolist(), strict=True)]
    for i in np.flatnonzero((cut > target) | (cut < lo)).tolist():
        s, t = out[i], int(target[i])
        if len(s) > t:
            s = s[:t].rstrip() or s[:t]
        if len(s) < lo:
            s = s + "x" * (lo - len(s))
        out[i] = s
    if both is None:  # a first letter whose capital is longer: capitalised on the cut
        out = [s[0].upper() + s[1:] if s else s for s in out]
    return out


_WORDS_DRAWN = 12  # words drawn per value of `_fit_words`
# a word pool's lengths, and the pool followed by its words with the first letter capitalised
# (None when a capital is longer than its letter, "ß" -> "SS"), by the pool (kept here, so its id
# is not reused)
_WORD_FORMS: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray | None]] = {}


def _word_forms(words: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    got = _WORD_FORMS.get(id(words))
    if got is None:
        if len(_WORD_FORMS) >= 64:
            _WORD_FORMS.clear()
        listed = words.tolist()
        lengths = np.array([len(w) for w in listed], dtype=np.int64)
        caps = [w[:1].upper() + w[1:] for w in listed]
        same = all(len(cw) == len(w) for cw, w in zip(caps, listed, strict=True))
        both = np.array(listed + caps, dtype=object) if same else None
        got = _WORD_FORMS[id(words)] = (words, lengths, both)
    return got[1], got[2]


def _codes(c: LeafContext, n: int, lo: int, hi: int | None) -> list[str]:
    top = hi if hi is not None else max(lo, 10)
    a = max(lo, min(8, top))
    lengths = c.rng.integers(a, max(a, min(top, a + 4)) + 1, size=n)
    width = max(int(lengths.max()) if n else 0, 1)
    codes = _UPPER_ALNUM_CODES[c.rng.integers(0, len(_UPPER_ALNUM_CODES), size=(n, width))]
    codes[np.arange(width)[None, :] >= lengths[:, None]] = 0
    return codes_to_strings(codes)


def _facet_key(spec: LeafSpec) -> tuple[Any, ...]:
    """Everything a StringGenerator's strategies and checks depend on: the facets, format and
    category, and of the name only whether it reads like a code (its one use). A tuple, not the
    spec's repr: this runs once per string field, and a large schema has a hundred thousand."""
    codeish = any(k in spec.name.lower() for k in _CODE_NAMES)
    return (codeish, spec.min_length, spec.max_length, tuple(spec.patterns), spec.format, spec.category)


class StringGenerator:
    """Columns of strings meeting length, pattern and format facets, realistic where possible."""

    octets: bool  # lengths count UTF-8 octets (a binary format), not characters
    lo: int
    hi: int | None
    format_check: str | None
    regexes: list[RegexGenerator]
    strategies: list[tuple[Strategy, frozenset[int]]]

    def __init__(self, spec: LeafSpec) -> None:
        self.spec = spec
        self._suffix_checked: dict[int, bool] = {}  # key space -> suffixed unique values fit
        key = _facet_key(spec)
        twin = _CHECKED.get(key)
        if twin is not None:
            # all of it follows from the key (the twin's strategies read its lo and hi, ours too)
            self.octets, self.lo, self.hi, self.format_check = (
                twin.octets,
                twin.lo,
                twin.hi,
                twin.format_check,
            )
            self.regexes, self.strategies = twin.regexes, twin.strategies
            return
        fmt = spec.format
        if fmt in formats.UNSUPPORTED_FORMATS:
            raise Unsatisfiable(f"{spec.path}: {formats.UNSUPPORTED_FORMATS[fmt]}.")
        self.octets = fmt in formats.OCTET_LENGTH_FORMATS
        self.lo = spec.min_length or 0
        self.hi = spec.max_length
        if self.hi is not None and self.lo > self.hi:
            raise Unsatisfiable(f"{spec.path}: minLength {self.lo} is greater than maxLength {self.hi}.")
        alphabet = FORMAT_ALPHABETS.get(fmt) if fmt and spec.patterns else None
        # the format is checked value by value only where a pattern may break it
        self.format_check = fmt if alphabet is not None and fmt in _format_checker().checkers else None
        self.regexes = []
        for pattern, anchored in spec.patterns:
            try:
                self.regexes.append(RegexGenerator(pattern, anchored=anchored, alphabet=alphabet))
            except UnsupportedPattern as exc:
                raise Unsatisfiable(f"{spec.path}: pattern {pattern!r} cannot be generated: {exc}.") from None
        char_lo, char_hi = (0, None) if self.octets else (self.lo, self.hi)
        for rx in self.regexes:
            why = rx.feasible(char_lo, char_hi)
            if why:
                raise Unsatisfiable(f"{spec.path}: {why}.")
        self.strategies = self._strategies(fmt, char_lo, char_hi)
        self.compile_check()
        if len(_CHECKED) < _CHECKED_MAX and sum(len(p) for p, _ in spec.patterns) <= MAX_KEY_CHARS:
            _CHECKED[key] = self

    def _strategies(
        self, fmt: str | None, char_lo: int, char_hi: int | None
    ) -> list[tuple[Strategy, frozenset[int]]]:
        """Ways to draw a column, best first: (generator, regex indexes it matches by construction)."""
        strategies: list[tuple[Strategy, frozenset[int]]] = []
        spec = self.spec
        category = spec.category
        if category in cv.STRING_GENERATORS:
            gen = cv.STRING_GENERATORS[category]

            def realistic(c: LeafContext, n: int, g: cv.CategoryFn = gen) -> list[str]:
                return g(cv.CategoryContext(c.rng, c.locale, c.shared), n)

            strategies.append((realistic, frozenset()))
        if fmt in formats.FORMAT_GENERATORS:

            def formatted(
                c: LeafContext, n: int, g: formats.FormatFn = formats.FORMAT_GENERATORS[fmt]
            ) -> list[str]:
                return g(c, n, self.lo, self.hi)

            strategies.append((formatted, frozenset()))
            short = formats.short_fallback(fmt)
            if short is not None:

                def shorter(c: LeafContext, n: int, g: formats.FormatFn = short) -> list[str]:
                    return g(c, n, self.lo, self.hi)

                strategies.append((shorter, frozenset()))
        if len(self.regexes) > 1 and not any(rx.fixed_ends for rx in self.regexes):
            # several search patterns: one match of each, start-anchored first, end-anchored
            # last, so every pattern finds its match in the joined string
            ordered = sorted(
                self.regexes, key=lambda rx: 0 if rx.starts_anchored else 2 if rx.ends_anchored else 1
            )
            if (
                sum(rx.starts_anchored for rx in ordered) <= 1
                and sum(rx.ends_anchored for rx in ordered) <= 1
            ):

                def joined(c: LeafContext, n: int, rxs: list[RegexGenerator] = ordered) -> list[str]:
                    columns = [rx.generate(c.rng, n) for rx in rxs]
                    return ["".join(parts) for parts in zip(*columns, strict=True)]

                strategies.append((joined, frozenset()))
        if self.regexes:
            rx0 = self.regexes[0]
            # the other patterns' length ranges narrow the window the first one is drawn in
            gen_lo, gen_hi = char_lo, char_hi
            for rx in self.regexes[1:]:
                gen_lo = max(gen_lo, rx.min_len)
                if rx.fixed_ends and rx.true_max is not None:
                    gen_hi = rx.true_max if gen_hi is None else min(gen_hi, rx.true_max)
            if gen_hi is not None and gen_lo > gen_hi:
                raise Unsatisfiable(f"{spec.path}: the patterns allow no common length.")
            strategies.append(
                (
                    lambda c, n: rx0.generate(c.rng, n, gen_lo, gen_hi),
                    frozenset({0}) if rx0.exact else frozenset(),
                )
            )
        elif fmt not in formats.FORMAT_GENERATORS:
            if any(k in spec.name.lower() for k in _CODE_NAMES):
                strategies.append((lambda c, n: _codes(c, n, self.lo, self.hi), frozenset()))
            strategies.append((lambda c, n: _fit_words(c, n, self.lo, self.hi), frozenset()))
        return strategies

    # -- checks ----------------------------------------------------------------------------

    def ok(self, values: list[str], guaranteed: frozenset[int] = frozenset()) -> np.ndarray:
        n = len(values)
        good = np.ones(n, dtype=bool)
        if not self.octets and (self.lo or self.hi is not None) and n:
            lengths = list(map(len, values))
            # two C passes decide the usual case (every length fits) without an array
            if min(lengths) < self.lo or (self.hi is not None and max(lengths) > self.hi):
                lens = np.array(lengths, dtype=np.int64)
                good &= lens >= self.lo
                if self.hi is not None:
                    good &= lens <= self.hi
        for i, rx in enumerate(self.regexes):
            if i in guaranteed:
                continue
            if good.all() and rx.all_match(values):
                continue
            rows = np.flatnonzero(good)
            if rows.size:
                # the compiled pattern mapped over the values (no Python frame per value)
                match = rx.compiled.fullmatch if rx.anchored else rx.compiled.search
                subset = values if rows.size == n else [values[i] for i in rows.tolist()]
                m = np.fromiter(map(is_not, map(match, subset), repeat(None)), dtype=bool, count=rows.size)
                good[rows[~m]] = False
        if self.format_check is not None:
            conforms = _format_checker().conforms
            for i in np.flatnonzero(good).tolist():
                if not conforms(values[i], self.format_check):
                    good[i] = False
        return good

    def _fill(self, c: LeafContext, n: int, strategies: list | None = None) -> list[str]:
        out: list[str] | None = None
        bad = np.ones(n, dtype=bool)
        chain = self.strategies if strategies is None else strategies
        for si, (strategy, guaranteed) in enumerate(chain):
            # the last strategy is the facet-driven one: give it more draws
            for _r in range(_ROUNDS if si < len(chain) - 1 else 4 * _ROUNDS):
                rows = np.flatnonzero(bad)
                if not rows.size:
                    return out if out is not None else []  # (None only when n == 0)
                if out is None:
                    vals = strategy(c, n)
                    out = vals
                    bad = ~self.ok(vals, guaranteed)
                    continue
                vals = strategy(c.subset(rows, c.rng), rows.size)
                good = self.ok(vals, guaranteed)
                for j in np.flatnonzero(good).tolist():
                    out[rows[j]] = vals[j]
                bad[rows[good]] = False
        if out is None or bad.any():
            also = (
                f"; the pattern's values are also checked as a {self.format_check!r}, and "
                f"{int(bad.sum())} of {n} were not valid ones"
                if self.format_check and out is not None
                else ""
            )
            kinds = sorted({k for rx in self.regexes for k in rx.assertions})
            if kinds:
                also += (
                    f"; the pattern's {' and '.join(kinds)} assertions are met only by checking "
                    f"values drawn without them, and too few of those met them"
                )
            raise Unsatisfiable(
                f"{self.spec.path}: could not generate a string satisfying every facet "
                f"(lengths {self.lo}..{self.hi}, {len(self.regexes)} pattern(s), "
                f"format {self.spec.format}){also}."
            )
        return out

    def compile_check(self) -> None:
        """Fail fast when no strategy satisfies the facets; drop realistic strategies that mostly
        miss them (a Faker phone number against `^\\+?[0-9]{10,14}$`), they would only cost time.
        The check is deterministic (seeded draws): a field with the same `_facet_key` reuses it."""
        n = 40
        rng = np.random.default_rng(0)
        ctx = LeafContext(rng, "en_US", np.arange(n), n, lambda g, s: rng.integers(0, s, size=n))
        kept: list[int] = []
        for i, (strategy, guaranteed) in enumerate(self.strategies):
            last = i == len(self.strategies) - 1
            try:
                rate = float(self.ok(strategy(ctx, n), guaranteed).mean())
            except GenerationError:
                if last and not kept:
                    raise
                continue
            if rate >= 0.5 or (last and rate > 0) or (rate > 0 and not kept and last):
                kept.append(i)
        if not kept:
            kept = list(range(len(self.strategies)))
        self.strategies = [self.strategies[i] for i in kept]
        self._fill(ctx, n)

    # -- public ----------------------------------------------------------------------------

    def generate(self, c: LeafContext, n: int) -> LeafValues:
        return LeafValues(self._fill(c, n))

    def generate_unique(self, c: LeafContext) -> LeafValues:
        perm_key = c.seed ^ c.field_key
        if self.regexes:
            if self.spec.unique_soft:
                # enumerating a pattern (RegexGenerator.nth) costs ~0.4 ms a value in Python: too
                # slow for a default. A realistic value with a key suffix often still matches (an
                # e-mail pattern); where it does not, the default yields and values are drawn freely
                if not self._suffix_fits(c.key_space):
                    raise Unsatisfiable(f"{self.spec.path}: a patterned field is not unique by default.")
                return self._suffixed_unique(c, perm_key)
            rx = self.regexes[0]
            space = rx.count()
            if space < c.key_space:
                raise Unsatisfiable(
                    f"{self.spec.path}: the pattern allows only {space} distinct values, "
                    f"but {c.key_space} unique values are needed."
                )
            perm = FeistelPermutation(min(space, 2**62 - 1), perm_key)
            vals = [rx.nth(int(k)) for k in perm(c.keys.astype(np.uint64)).tolist()]
            if not self.ok(vals).all():
                raise Unsatisfiable(
                    f"{self.spec.path}: unique values of this pattern cannot also meet the other facets."
                )
            return LeafValues(vals)
        if self.spec.format == "uuid" or self.spec.category == "uuid":
            perm = FeistelPermutation(2**62 - 1, perm_key)
            ids = perm(c.keys.astype(np.uint64)).astype(np.uint64)
            raw = c.rng.integers(0, 256, size=(len(ids), 16), dtype=np.uint8)
            raw[:, :8] = ids.astype(">u8").view(np.uint8).reshape(-1, 8)
            raw[:, 6] = (raw[:, 6] & 0x0F) | 0x40
            # byte 6 lost four key bits: keep them in byte 9, which is otherwise random
            raw[:, 9] = (ids.astype(">u8").view(np.uint8).reshape(-1, 8)[:, 6] >> 4) | (raw[:, 9] & 0xF0)
            raw[:, 8] = (raw[:, 8] & 0x3F) | 0x80
            return LeafValues(cv.format_uuid(raw))
        return self._suffixed_unique(c, perm_key)

    def _suffix_fits(self, key_space: int) -> bool:
        """Whether suffixed unique values meet a patterned field's facets, judged once per key space
        on seeded draws, so every block of a dataset takes the same path whatever ran before it."""
        fits = self._suffix_checked.get(key_space)
        if fits is None:
            n = max(1, min(40, key_space))  # keys must lie inside the key space
            rng = np.random.default_rng(0)
            ctx = LeafContext(rng, "en_US", np.arange(n), key_space, lambda g, s: rng.integers(0, s, size=n))
            try:
                self._suffixed_unique(ctx, 0)
                fits = True
            except Unsatisfiable:
                fits = False
            self._suffix_checked[key_space] = fits
        return fits

    def _suffixed_unique(self, c: LeafContext, perm_key: int) -> LeafValues:
        # a base-36 code of the permuted key, after a realistic prefix when room allows
        width = max(1, math.ceil(math.log(max(c.key_space, 2), 36)))
        if self.hi is not None and width > self.hi:
            raise Unsatisfiable(
                f"{self.spec.path}: {c.key_space} unique values do not fit in {self.hi} characters."
            )
        perm = FeistelPermutation(36**width, perm_key)
        keys = perm(c.keys.astype(np.uint64))
        base = self._fill(c, len(keys))
        email = self.spec.format in ("email", "idn-email") or self.spec.category == "email"
        if email or self.spec.category == "username":  # jane.doe.k3f@example.com, jane.doe.k3f
            codes = base36(keys, width, lower=True)
            parts = map(_AT, base)
            out = [f"{a}.{k}{at}{d}" if a else k + at + d for (a, at, d), k in zip(parts, codes, strict=True)]
        else:
            codes = base36(keys, width)
            out = [f"{b}-{k}" if b else k for b, k in zip(base, codes, strict=True)]
        bad = np.flatnonzero(~self.ok(out)).tolist()
        if email and bad:
            raise Unsatisfiable(f"{self.spec.path}: unique e-mail addresses do not fit this field's facets.")
        for i in bad:
            pad = self.lo - width
            out[i] = codes[i] + ("X" * pad if pad > 0 else "")
        # only the replaced values are checked again (a pattern check of every value costs the
        # bench XSD's unique e-mails a quarter of its throughput)
        if bad and not self.ok([out[i] for i in bad]).all():
            raise Unsatisfiable(f"{self.spec.path}: unique values cannot meet this field's facets.")
        return LeafValues(out)
