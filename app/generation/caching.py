"""Process-level memo caches keyed by what a schema says (patterns, field names, facets).

functools.lru_cache bounds the number of entries, not their size: 4,096 cached translations of
1 MB patterns would hold 8 GB. `short_key_cache` is lru_cache for calls whose string (and tuple)
arguments are short, which is every real pattern or name; a longer call is computed each time
and never kept, so a cache holds at most `maxsize` entries of at most MAX_KEY_CHARS of key (and
whatever the function makes of such a key).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

MAX_KEY_CHARS = 2048


def key_chars(*values: object) -> int:
    """The size of a call's key: characters of str/bytes arguments, items of tuple ones."""
    size = 0
    for value in values:
        if isinstance(value, str | bytes | tuple):
            size += len(value)
    return size


def short_key_cache(
    maxsize: int, max_key_chars: int = MAX_KEY_CHARS
) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """lru_cache(maxsize) for calls whose key_chars is at most max_key_chars; others run uncached."""

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        cached: Callable[..., R] = functools.lru_cache(maxsize=maxsize)(fn)

        @functools.wraps(fn)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            if key_chars(*args, *kwargs.values()) > max_key_chars:
                return fn(*args, **kwargs)
            return cached(*args, **kwargs)

        return call

    return decorate
