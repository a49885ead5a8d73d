"""The column-at-a-time regex tree: literal, set, sequence, alternation and repeat nodes, each
returning a code-point matrix and row lengths."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from app.generation.values.charsets import Intervals


class RxGen:
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
class RxSet(RxGen):
    starts: NDArray[np.int64]
    sizes: NDArray[np.int64]
    cum: NDArray[np.int64]
    total: int

    def __init__(self, iv: Intervals) -> None:
        self.starts = np.array([lo for lo, _ in iv], dtype=np.int64)
        self.sizes = np.array([hi - lo + 1 for lo, hi in iv], dtype=np.int64)
        self.cum = np.cumsum(self.sizes)
        self.total = int(self.cum[-1])
        self.min_len = self.max_len = 1

    def pick(self, rng: np.random.Generator, shape: tuple[int, ...]) -> NDArray[np.uint32]:
        r = rng.integers(0, self.total, size=shape)
        if len(self.starts) == 1:
            one: NDArray[np.uint32] = (r + self.starts[0]).astype(np.uint32)
            return one
        k = np.searchsorted(self.cum, r, side="right")
        return (self.starts[k] + r - (self.cum[k] - self.sizes[k])).astype(np.uint32)

    def gen(self, rng: np.random.Generator, n: int, mode: int) -> tuple[np.ndarray, np.ndarray]:
        return self.pick(rng, (n, 1)), np.ones(n, dtype=np.int64)

    def count(self) -> int:
        return self.total

    def nth(self, k: int) -> str:
        i = int(np.searchsorted(self.cum, k, side="right"))
        return chr(int(self.starts[i]) + k - int(self.cum[i] - self.sizes[i]))


FILLER = RxSet([(0x61, 0x7A)])


class RxLit(RxGen):
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


def concat_codes(parts: list[tuple[np.ndarray, np.ndarray]], n: int) -> tuple[np.ndarray, np.ndarray]:
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
            out[:, col : col + w] = codes
            col += w
        else:
            idx = lengths[:, None] + np.arange(w)[None, :]
            # padding zeros land after the row's content, so they never clobber earlier parts
            out[rows, idx] = codes
        lengths = lengths + lens
        if fixed and not (lens == w).all():
            fixed = False
    return out, lengths


class RxSeq(RxGen):
    def __init__(self, items: list[RxGen]) -> None:
        self.items = items
        self.min_len = sum(i.min_len for i in items)
        self.max_len = sum(i.max_len for i in items)

    def gen(self, rng: np.random.Generator, n: int, mode: int) -> tuple[np.ndarray, np.ndarray]:
        return concat_codes([i.gen(rng, n, mode) for i in self.items], n)

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


class RxAlt(RxGen):
    def __init__(self, branches: list[RxGen]) -> None:
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
                out[rows, : codes.shape[1]] = codes
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


class RxRep(RxGen):
    full_hi: int | None = None  # the pattern's own upper bound (None: unbounded)

    def __init__(self, sub: RxGen, lo: int, hi: int) -> None:
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
        if isinstance(self.sub, RxSet):
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
        return concat_codes(parts, n)

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


def capped(gen: RxGen, slack: int) -> RxGen:
    """A copy of the tree where no repeat alone can add more than `slack` characters beyond the
    pattern's minimum: rejection sampling against a maxLength then rarely misses."""
    if isinstance(gen, RxSeq):
        return RxSeq([capped(i, slack) for i in gen.items])
    if isinstance(gen, RxAlt):
        return RxAlt([capped(b, slack) for b in gen.branches])
    if isinstance(gen, RxRep):
        sub = capped(gen.sub, slack)
        width = max(sub.max_len, 1)
        hi = max(gen.lo, min(gen.hi, gen.lo + slack // width))
        rep = RxRep(sub, gen.lo, hi)
        rep.full_hi = min(gen.full_hi, hi) if gen.full_hi is not None else hi
        return rep
    return gen


def within(gen: RxGen, budget: int) -> RxGen | None:
    """A copy of the tree that draws at most `budget` characters, repeats narrowed and branches too
    long dropped; None when even the shortest match is longer. A sequence shares its slack over
    the minimum equally between its items, a repeat splits its budget between its minimum count."""
    if gen.min_len > budget:
        return None
    if gen.max_len <= budget:
        return gen
    if isinstance(gen, RxSeq):
        share = (budget - gen.min_len) // len(gen.items)
        return RxSeq([within(i, i.min_len + share) or i for i in gen.items])
    if isinstance(gen, RxAlt):
        return RxAlt([b for b in (within(b, budget) for b in gen.branches) if b is not None])
    if isinstance(gen, RxRep):
        sub = within(gen.sub, budget // gen.lo if gen.lo else budget)
        if sub is None:
            return None
        hi = max(gen.lo, min(gen.hi, budget // max(sub.max_len, 1)))
        rep = RxRep(sub, gen.lo, hi)
        rep.full_hi = min(gen.full_hi, hi) if gen.full_hi is not None else hi
        return rep
    return gen


def _fit_parts(gen: RxGen) -> list[RxGen] | None:
    """The items of a pattern whose length can be steered exactly: literals, single-character
    sets and repeats of a single-character set in sequence; None for anything else."""
    items = gen.items if isinstance(gen, RxSeq) else [gen]
    for it in items:
        if not (isinstance(it, (RxLit, RxSet)) or (isinstance(it, RxRep) and isinstance(it.sub, RxSet))):
            return None
    return items


def steerable(gen: RxGen) -> bool:
    """Whether `generate_exact_lengths` can draw this tree at any length it allows."""
    return _fit_parts(gen) is not None


def generate_exact_lengths(gen: RxGen, rng: np.random.Generator, target: np.ndarray) -> np.ndarray | None:
    """Code points of strings of exactly `target[i]` characters each (None when not steerable).
    The slack above the fixed minimum is split over the repeats, each taking a random share
    within what the repeats after it can still absorb, so every row lands on its target."""
    items = _fit_parts(gen)
    if items is None:
        return None
    n = len(target)
    caps = []
    for it in items:
        if isinstance(it, RxRep):
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
        if isinstance(it, RxLit):
            parts.append((np.broadcast_to(it.codes, (n, len(it.codes))), np.full(n, len(it.codes))))
            continue
        if isinstance(it, RxSet):
            parts.append((it.pick(rng, (n, 1)), np.ones(n, dtype=np.int64)))
            continue
        assert isinstance(it, RxRep) and isinstance(it.sub, RxSet)  # what _fit_parts lets through
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
    codes, _lens = concat_codes(parts, n)
    return codes
