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

Also here: the problems of a schema's record root (`problems_of`), found in a probe process
(app/core/schema_probe.py) once per content and root and kept in a byte-bounded cache of their own.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import os
import sys
import threading
import types
from collections import OrderedDict
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from app.core.error_codes import ErrorCode
from app.core.errors import Invalid
from app.core.generation import load_schema
from app.core.schema_probe import find_problems, probe_pool
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
_problems_lock = threading.Lock()


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
    _probing.clear()
    problems_cache._after_fork()
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


# problems per (storage key, root), kept apart from the parses (a 1 MB schema's parse may be too big
# for the parse budget and be dropped at once) and bounded by bytes of their own: a list is a few
# hundred bytes, or hundreds of kB for a record with thousands of impossible fields
PROBLEMS_CACHE_BYTES = 4 * 1024 * 1024
_NOT_CHECKED = (
    "not checked before generation: the check's process ended unexpectedly (out of memory?); "
    "what cannot be generated shows when a dataset is"
)


class ProblemsCache:
    """An LRU map of (storage key, root) to a problems list, bounded by measured bytes."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.total_bytes = 0
        self._entries: OrderedDict[tuple[str, str | None], tuple[list[dict[str, Any]], int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str | None]) -> list[dict[str, Any]] | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return [dict(problem) for problem in entry[0]]

    def put(self, key: tuple[str, str | None], problems: list[dict[str, Any]]) -> None:
        weight = deep_size(problems) + deep_size(key)
        if weight > self.max_bytes:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.total_bytes -= old[1]
            self._entries[key] = ([dict(problem) for problem in problems], weight)
            self.total_bytes += weight
            while self.total_bytes > self.max_bytes:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.total_bytes -= dropped

    def __contains__(self, key: tuple[str, str | None]) -> bool:
        with self._lock:
            return key in self._entries

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.total_bytes = 0

    def _after_fork(self) -> None:
        self._lock = threading.Lock()


problems_cache = ProblemsCache(PROBLEMS_CACHE_BYTES)
# probes under way, so concurrent requests for one (storage key, root) start one probe
_probing: dict[tuple[str, str | None], Future[tuple[list[dict[str, Any]], str | None]]] = {}


async def problems_of(
    store: Store, storage_key: str, filename: str | None, root: str | None, *, raw: bytes | None = None
) -> list[dict[str, Any]]:
    """The root's problems (None: the default root; app/generation/problems.py), found once per
    schema content and root, in a probe process (app/core/schema_probe.py), never in this one. `raw`:
    the schema file's bytes when at hand (else read from the store). 422 for a root the schema
    does not have."""
    key = (storage_key, root)
    known = problems_cache.get(key)
    if known is not None:
        return known
    if raw is None:
        raw = await asyncio.to_thread(store.get_blob, storage_key)
    with _problems_lock:
        future = _probing.get(key)
        started = future is None
        if future is None:
            future = probe_pool().submit(find_problems, raw, filename, root)
            _probing[key] = future
    if started:
        # outside the lock: a probe already done runs its callback here and now, and the callback
        # takes the lock (the upload hung for good when a probe finished this fast)
        future.add_done_callback(functools.partial(_probed, key))
    try:
        # shielded: a waiter that goes away (a client hung up) must not cancel others' probe
        found, refusal = await asyncio.shield(asyncio.wrap_future(future))
    except BrokenProcessPool:
        return [{"path": "", "reason": _NOT_CHECKED, "blocking": False}]
    if refusal is not None:
        raise Invalid(refusal, code=ErrorCode.SCHEMA_REFUSED)
    return [dict(problem) for problem in found]


def _probed(key: tuple[str, str | None], future: Future[tuple[list[dict[str, Any]], str | None]]) -> None:
    with _problems_lock:
        if _probing.get(key) is future:
            del _probing[key]
    if future.cancelled() or future.exception() is not None:
        return
    found, refusal = future.result()
    if refusal is None:
        problems_cache.put(key, found)
