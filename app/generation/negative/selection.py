"""Which records of a dataset are invalid: exactly round(N x R) of the N, chosen by the seed.

Record i is invalid when a keyed permutation of [0, N) sends it below the count: a function of
(seed, N, R, i) alone, so any shard, block or file computes the same answer for its own records."""

from __future__ import annotations

import math
import random

import numpy as np

from app.generation.values.permutation import FeistelPermutation

_SALT = 0x6E656761746976
_MASK = (1 << 64) - 1  # "negativ": keeps these draws apart from the generators' own


def invalid_count(record_count: int, rate: float) -> int:
    """round(N x R), halves rounded up (not to even: 0.5 of 5 records is 3, whatever the parity)."""
    return min(record_count, max(0, math.floor(record_count * rate + 0.5)))


def _splitmix(x: int) -> int:
    x &= _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


class Selection:
    def __init__(self, record_count: int, rate: float, seed: int) -> None:
        self.record_count = record_count
        self.count = invalid_count(record_count, rate)
        self.seed = seed
        self._perm = FeistelPermutation(record_count, seed ^ _SALT) if 0 < self.count < record_count else None

    def rows(self, start: int, stop: int) -> np.ndarray:
        """The invalid records among [start, stop), ascending."""
        idx = np.arange(start, stop, dtype=np.int64)
        if self.count == 0 or stop <= start:
            return idx[:0]
        if self._perm is None:
            return idx
        return idx[self._perm(idx) < self.count]

    def rng(self, record: int) -> random.Random:
        """The draws of one invalid record (which constraint, where, which value): seeded by
        (seed, record) through splitmix64, a tenth of what a numpy generator costs to set up."""
        return random.Random(_splitmix((self.seed ^ _SALT) * 0x9E3779B97F4A7C15 + record))
