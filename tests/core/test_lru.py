"""BoundedLRU: the least recently read or put entry goes first, hits and misses are counted, and
threads putting and reading at once never push it past its bound."""

from __future__ import annotations

import threading

import pytest

from app.core.lru import BoundedLRU


def test_least_recently_used_goes_first() -> None:
    cache: BoundedLRU[str, int] = BoundedLRU(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "b" is now the least recent
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)
    assert len(cache) == 2 and (cache.hits, cache.misses) == (3, 1)
    cache.put("a", 10)  # a put refreshes too
    cache.put("d", 4)
    assert (cache.get("a"), cache.get("c")) == (10, None)
    cache.clear()
    assert len(cache) == 0 and (cache.hits, cache.misses) == (0, 0)


def test_bounded_under_threads() -> None:
    cache: BoundedLRU[int, int] = BoundedLRU(16)
    sizes: list[int] = []

    def churn(offset: int) -> None:
        for i in range(5000):
            cache.put(offset + i % 40, i)
            cache.get(offset + (i * 7) % 40)
            sizes.append(len(cache))

    threads = [threading.Thread(target=churn, args=(n * 100,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert max(sizes) <= 16 and len(cache) == 16


def test_refuses_a_size_under_one() -> None:
    with pytest.raises(ValueError, match="at least one"):
        BoundedLRU(0)
