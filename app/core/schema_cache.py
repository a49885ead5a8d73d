"""Parsed schemas cached by content hash: parsing a large XSD takes a while, and the same
schema is read for every repr, constraint check and generation run."""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict

from app.core.generation import load_schema
from app.core.storage import BlobStore
from app.generation.schema.loader import LoadedSchema

_MAX_ENTRIES = 32
_cache: OrderedDict[str, LoadedSchema] = OrderedDict()
_lock = threading.Lock()


def _get(sha256: str) -> LoadedSchema | None:
    with _lock:
        loaded = _cache.get(sha256)
        if loaded is not None:
            _cache.move_to_end(sha256)
        return loaded


def remember(sha256: str, loaded: LoadedSchema) -> None:
    with _lock:
        _cache[sha256] = loaded
        _cache.move_to_end(sha256)
        while len(_cache) > _MAX_ENTRIES:
            _cache.popitem(last=False)


def load_cached(store: BlobStore, storage_key: str, filename: str | None) -> LoadedSchema:
    loaded = _get(storage_key)
    if loaded is None:
        loaded = load_schema(store.get(storage_key), filename)
        remember(storage_key, loaded)
    return loaded


async def load_cached_async(store: BlobStore, storage_key: str, filename: str | None) -> LoadedSchema:
    loaded = _get(storage_key)
    if loaded is not None:
        return loaded
    # parsing is CPU-bound: keep it off the event loop
    return await asyncio.to_thread(load_cached, store, storage_key, filename)
