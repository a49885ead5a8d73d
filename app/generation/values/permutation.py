"""Keyed permutations of [0, n) for `unique` values. (design notes: docs/generation.md)"""

from __future__ import annotations

import numpy as np

_ROUNDS = 4
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def _mix(x: np.ndarray, key: np.uint64) -> np.ndarray:
    # splitmix64 finaliser: a cheap, well-distributed round function
    z = x ^ key
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


class FeistelPermutation:
    """A bijection of [0, n) keyed by `key`; n must be < 2**62."""

    def __init__(self, n: int, key: int) -> None:
        if n < 1 or n >= 2**62:
            raise ValueError("permutation size must be in [1, 2**62)")
        self.n = n
        bits = max(2, (n - 1).bit_length())
        bits += bits % 2
        self.half = bits // 2
        self.mask = np.uint64((1 << self.half) - 1)
        ss = np.random.SeedSequence([key & 0xFFFFFFFFFFFFFFFF, n & 0xFFFFFFFFFFFFFFFF])
        self.keys = [np.uint64(k) for k in ss.generate_state(_ROUNDS, dtype=np.uint64)]

    def _once(self, x: np.ndarray) -> np.ndarray:
        h = np.uint64(self.half)
        left, right = x >> h, x & self.mask
        with np.errstate(over="ignore"):
            for k in self.keys:
                left, right = right, left ^ (_mix(right, k) & self.mask)
        return (left << h) | right

    def __call__(self, values: np.ndarray) -> np.ndarray:
        x = np.asarray(values, dtype=np.uint64)
        if x.size and int(x.max()) >= self.n:
            raise ValueError("value outside the permutation domain")
        out = self._once(x)
        n = np.uint64(self.n)
        outside = out >= n
        while outside.any():  # cycle walking: re-apply until the value falls inside [0, n)
            out[outside] = self._once(out[outside])
            outside = out >= n
        return out.astype(np.int64)


_DIGITS36 = np.frombuffer(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ", dtype=np.uint8)


def base36(values: np.ndarray, width: int, lower: bool = False) -> list[str]:
    """Base-36 text of each value (< 36**width), zero-padded to `width` digits: one digit matrix
    decoded at once, not a loop per value."""
    v = np.asarray(values, dtype=np.int64)
    if not len(v):
        return []
    powers = 36 ** np.arange(width - 1, -1, -1, dtype=np.int64)
    out = np.full((len(v), width + 1), ord("\n"), dtype=np.uint8)
    out[:, :width] = _DIGITS36[(v[:, None] // powers) % 36]
    text = out.ravel()[:-1].tobytes().decode("ascii")
    return (text.lower() if lower else text).split("\n")
