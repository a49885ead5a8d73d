"""What one block of records is drawn with: its seeded random streams (BlockContext), the global keys
of its rows (Rows) and the row indexes the fields of one object share (Shared). Apart from the
generators so that the value modules they call (edges, agreement) can use them without a cycle."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

_MASK64 = (1 << 64) - 1
REDRAWS = 8


@dataclass
class BlockContext:
    seed: int
    block: int
    locale: str
    salt: int = 0
    # re-draws for oneOf / if-then-else: optional fields absent and arrays at minItems, which
    # is what usually separates overlapping options
    minimal: bool = False
    # xs:assert re-draws: every nullable (nillable) value null; a test that needs several
    # elements nil at once is rarely met by independent draws (two at the default rate: ~1%)
    nil_all: bool = False
    # params.locales: each record's locale drawn from these (objects split their rows by it)
    locales: tuple[str, ...] = ()
    # a record country drawn first (countries.py): the locales of this object's rows and each
    # row's index into them; the locale-dependent fields and units are drawn per locale
    split: tuple[tuple[str, ...], np.ndarray] | None = None

    def rng(self, key: int) -> np.random.Generator:
        return np.random.Generator(
            np.random.PCG64(
                np.random.SeedSequence([self.seed & _MASK64, self.block, key & _MASK64, self.salt])
            )
        )

    def salted(self, salt: int) -> BlockContext:
        return BlockContext(
            self.seed,
            self.block,
            self.locale,
            self.salt * 1000 + salt + 1,
            minimal=self.minimal or salt >= REDRAWS // 2,
            nil_all=self.nil_all,
            locales=self.locales,
        )


@dataclass
class Rows:
    n: int
    keys: np.ndarray  # global key of each row (int64)
    key_space: int

    def subset(self, idx: np.ndarray) -> Rows:
        return Rows(len(idx), self.keys[idx], self.key_space)


class Shared:
    """Row indexes shared by the fields of one object (the `person` and `address` groups)."""

    def __init__(self, bc: BlockContext, key: int, n: int) -> None:
        self.bc, self.key, self.n = bc, key, n
        self._cache: dict[tuple[str, int], NDArray[np.int64]] = {}

    def __call__(self, group: str, size: int) -> NDArray[np.int64]:
        got = self._cache.get((group, size))
        if got is None:
            got = self.bc.rng(self.key ^ (hash_key(group) & _MASK64)).integers(0, size, size=self.n)
            self._cache[(group, size)] = got
        return got

    def subset(self, idx: NDArray[np.intp]) -> Shared:
        return _SharedSubset(self, idx)


class _SharedSubset(Shared):
    """The group indexes of some rows of an object (the rows one choice option fills)."""

    def __init__(self, parent: Shared, idx: NDArray[np.intp]) -> None:
        super().__init__(parent.bc, parent.key, len(idx))
        self.parent, self.idx = parent, idx

    def __call__(self, group: str, size: int) -> NDArray[np.int64]:
        return self.parent(group, size)[self.idx]


def hash_key(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
