"""Parsed schemas cached by content hash: parsing a large XSD takes a while, and the same
schema is read for every repr, constraint check and generation run.

The cache is bounded by the memory its entries hold (TDG_SCHEMA_CACHE_BYTES, per process), not by
their number: a parsed schema holds from 3 to over 200 times its file's size (the field trees of
a 400 kB Vega schema take 77 MB), so a count says nothing about memory. Each entry is measured
(`deep_size`: the objects reachable from it that are its own) when it is added and again when it
has grown (a field tree or record validator built for another root), and the least recently used
entries are dropped while the total is over the budget; an entry bigger than the whole budget is
not kept. Measuring walks every object of a parse (about a third of the time the parse took), so
it runs on a background thread of its own, never on the event loop: the budget can be exceeded
for as long as that thread takes to catch up with what was just added.
"""

from __future__ import annotations

import asyncio
import gc
import os
import sys
import threading
import types
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from app.core.generation import load_schema, root_problems
from app.core.settings import get_settings
from app.core.storage import Store
from app.generation.schema.loader import LoadedSchema

# shared by every entry (classes, functions, modules): never counted in one
_SHARED_TYPES = (
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.CodeType,
    types.FrameType,
)
# how often the background thread looks for entries that grew while nothing was added
REWEIGH_INTERVAL_SECONDS = 5.0


def deep_size(root: object) -> int:
    """Bytes held by `root` and everything it references (sys.getsizeof of each object once),
    not counting classes, functions and modules, which are shared."""
    seen = {id(root)}
    stack = [root]
    total = 0
    getsizeof, referents = sys.getsizeof, gc.get_referents
    while stack:
        obj = stack.pop()
        total += getsizeof(obj)
        for ref in referents(obj):
            if id(ref) not in seen and not isinstance(ref, _SHARED_TYPES):
                seen.add(id(ref))
                stack.append(ref)
    return total


@dataclass(eq=False)
class _Entry:
    loaded: LoadedSchema
    weight: int = 0
    measured_parts: int = -1  # loaded.built_parts when last measured; -1: never


class SchemaCache:
    """An LRU map of storage key to parsed schema, bounded by measured bytes."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()  # guards _entries
        self._settling = threading.Lock()  # one measuring pass at a time
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def get(self, key: str) -> LoadedSchema | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            grown = entry.measured_parts != entry.loaded.built_parts
        if grown:
            self._schedule()
        return entry.loaded

    def put(self, key: str, loaded: LoadedSchema) -> None:
        if self.max_bytes <= 0:
            return
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry.loaded is not loaded:
                self._entries[key] = _Entry(loaded)
            self._entries.move_to_end(key)
        self._schedule()

    def __contains__(self, key: str) -> bool:
        with self._lock:
            return key in self._entries

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    @property
    def total_bytes(self) -> int:
        """The measured size of the entries (entries not measured yet count 0)."""
        with self._lock:
            return sum(entry.weight for entry in self._entries.values())

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def settle(self) -> None:
        """Measure the entries added or grown since they were last measured, then drop the least
        recently used ones while the total is over the budget (what the background thread does;
        tests call it to see the result at once)."""
        with self._settling:
            with self._lock:
                stale = [e for e in self._entries.values() if e.measured_parts != e.loaded.built_parts]
            for entry in stale:
                parts = entry.loaded.built_parts  # before measuring: a part built meanwhile is seen next time
                weight = deep_size(entry.loaded)
                with self._lock:
                    entry.weight, entry.measured_parts = weight, parts
            with self._lock:
                total = sum(entry.weight for entry in self._entries.values())
                while total > self.max_bytes and self._entries:
                    _, dropped = self._entries.popitem(last=False)
                    total -= dropped.weight

    def _schedule(self) -> None:
        thread = self._thread
        if thread is None or not thread.is_alive():
            with self._lock:
                if self._thread is None or not self._thread.is_alive():
                    self._thread = threading.Thread(target=self._run, name="schema-cache", daemon=True)
                    self._thread.start()
        self._wake.set()

    def _run(self) -> None:
        while True:
            self._wake.wait(REWEIGH_INTERVAL_SECONDS)
            self._wake.clear()
            self.settle()

    def _after_fork(self) -> None:
        # a forked child (a Celery prefork worker) has none of the parent's threads, and a lock
        # the parent's thread held at the fork would stay held forever
        self._lock = threading.Lock()
        self._settling = threading.Lock()
        self._wake = threading.Event()
        self._thread = None


_cache: SchemaCache | None = None
_cache_lock = threading.Lock()


def cache() -> SchemaCache:
    """This process's schema cache, sized by TDG_SCHEMA_CACHE_BYTES."""
    global _cache
    if _cache is None:
        with _cache_lock:
            if _cache is None:
                _cache = SchemaCache(get_settings().schema_cache_bytes)
    return _cache


def _reset_after_fork() -> None:
    global _cache_lock, _problems_lock
    _cache_lock = threading.Lock()
    _problems_lock = threading.Lock()
    if _cache is not None:
        _cache._after_fork()


os.register_at_fork(after_in_child=_reset_after_fork)


def remember(sha256: str, loaded: LoadedSchema) -> None:
    cache().put(sha256, loaded)


def load_cached(store: Store, storage_key: str, filename: str | None) -> LoadedSchema:
    loaded = cache().get(storage_key)
    if loaded is None:
        loaded = load_schema(store.get_blob(storage_key), filename)
        remember(storage_key, loaded)
    return loaded


async def load_cached_async(store: Store, storage_key: str, filename: str | None) -> LoadedSchema:
    loaded = cache().get(storage_key)
    if loaded is not None:
        return loaded
    # parsing is CPU-bound: keep it off the event loop
    return await asyncio.to_thread(load_cached, store, storage_key, filename)


# problems per (storage key, root), kept apart from the parses: an entry is a few hundred bytes,
# while the parse it came from may be too big for the byte budget and be dropped at once
_PROBLEMS_KEPT = 1024
_problems: OrderedDict[tuple[str, str | None], list[dict[str, Any]]] = OrderedDict()
_problems_lock = threading.Lock()


def problems_of(storage_key: str, loaded: LoadedSchema, root: str | None) -> list[dict[str, Any]]:
    """The root's problems (app/generation/problems.py), found once per schema content and root.
    Blocking: call it off the event loop."""
    key = (storage_key, root)
    with _problems_lock:
        known = _problems.get(key)
        if known is not None:
            _problems.move_to_end(key)
            return [dict(problem) for problem in known]
    found = root_problems(loaded, root)
    with _problems_lock:
        _problems[key] = found
        while len(_problems) > _PROBLEMS_KEPT:
            _problems.popitem(last=False)
    return [dict(problem) for problem in found]
