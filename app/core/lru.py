"""A least-recently-used map bounded by its number of entries, safe across threads.

The per-process caches that count entries use it: compiled plans (app/core/generation.py), a
worker's plans by dataset (app/core/jobs/plans.py), verified token claims
(app/core/auth/service.py), statements built per caller (app/core/repositories/base.py), the
SQLite statements too long for the event loop's thread (app/core/database.py). The schema caches
bound their bytes instead (app/core/schema_cache.py).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedLRU(Generic[K, V]):
    """At most `max_size` entries; putting one more drops the least recently read or put."""

    def __init__(self, max_size: int) -> None:
        if max_size < 1:
            raise ValueError("A bounded cache holds at least one entry.")
        self.max_size = max_size
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._entries.get(key)
            if value is None:
                self.misses += 1
            else:
                self.hits += 1
                self._entries.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)
