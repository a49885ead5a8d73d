"""The parsed-schema cache is bounded by the memory its entries hold, measured, not by their
number: schemas past the byte budget are dropped least recently used first, one bigger than the
whole budget is not kept, an entry is measured again when it grows (a field tree built after it
was cached), many small schemas fit where few large ones do, and the background thread keeps the
budget without anyone asking. The memo caches keyed by what schemas say (patterns, names) keep
only short keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core import schema_cache
from app.core.schema_cache import SchemaCache, deep_size
from app.core.settings import Settings, get_settings
from app.core.storage import LocalStore
from app.generation.caching import MAX_KEY_CHARS, short_key_cache
from app.generation.schema.ecma_regex import translate_ecma_pattern
from app.generation.schema.loader import LoadedSchema, load_schema
from tests.support.waiting import eventually_sync

MB = 1024 * 1024


def _schema(seed: int, properties: int) -> bytes:
    doc = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            f"field_{seed}_{i}": {
                "type": "string",
                "maxLength": 10 + i % 50,
                "description": f"field {i} of {seed}",
            }
            for i in range(properties)
        },
    }
    return json.dumps(doc).encode()


def _loaded(seed: int, properties: int, *, tree: bool = True) -> LoadedSchema:
    loaded = load_schema(_schema(seed, properties), "s.schema.json")
    if tree:
        loaded.field_tree()
    return loaded


def test_deep_size_counts_what_a_parse_holds() -> None:
    small, large = _loaded(1, 50), _loaded(2, 2000)
    assert deep_size(large) > 10 * deep_size(small)
    # the parsed document and its field tree take several times the file's size
    assert deep_size(large) > 3 * len(_schema(2, 2000))
    bare = _loaded(3, 2000, tree=False)
    assert deep_size(bare) < deep_size(large)


def test_entries_past_the_byte_budget_are_dropped_least_recently_used_first() -> None:
    entries = {f"k{i}": _loaded(i, 1000) for i in range(6)}
    one = deep_size(entries["k0"])
    cache = SchemaCache(max_bytes=int(3.5 * one))
    for key, loaded in entries.items():
        cache.put(key, loaded)
    cache.settle()
    assert one * 2.5 < cache.total_bytes <= cache.max_bytes
    assert [k for k in entries if k in cache] == ["k3", "k4", "k5"]

    cache = SchemaCache(max_bytes=int(3.5 * one))
    for key in ("k0", "k1", "k2"):
        cache.put(key, entries[key])
    assert cache.get("k0") is entries["k0"]  # now the most recently used
    cache.put("k3", entries["k3"])
    cache.settle()
    assert [k for k in entries if k in cache] == ["k0", "k2", "k3"]


def test_many_small_schemas_fit_where_few_large_ones_do() -> None:
    large = _loaded(100, 3000)
    cache = SchemaCache(max_bytes=deep_size(large) + 1)
    for i in range(64):  # twice the old fixed count of 32
        cache.put(f"small{i}", _loaded(i, 5))
    cache.settle()
    assert len(cache) == 64
    cache.put("large", large)
    cache.settle()
    assert "large" in cache and len(cache) < 64


def test_an_entry_bigger_than_the_budget_is_not_kept_and_zero_disables() -> None:
    loaded = _loaded(1, 500)
    cache = SchemaCache(max_bytes=deep_size(loaded) // 2)
    cache.put("big", loaded)
    cache.settle()
    assert "big" not in cache and cache.total_bytes == 0
    disabled = SchemaCache(max_bytes=0)
    disabled.put("any", _loaded(2, 5))
    assert len(disabled) == 0


def test_an_entry_that_grows_is_measured_again() -> None:
    bare = _loaded(1, 2000, tree=False)
    others = [_loaded(10 + i, 200) for i in range(3)]
    cache = SchemaCache(max_bytes=deep_size(_loaded(1, 2000)) + sum(deep_size(o) for o in others) // 2)
    for i, other in enumerate(others):
        cache.put(f"other{i}", other)
    cache.put("grows", bare)
    cache.settle()
    assert len(cache) == 4  # before its field tree, everything fits
    before = cache.total_bytes
    bare.field_tree()  # built after it was cached, as an upload's field count does
    assert cache.get("grows") is bare
    cache.settle()
    assert cache.total_bytes > before
    assert cache.total_bytes <= cache.max_bytes
    assert "grows" in cache and "other0" not in cache


def test_the_background_thread_keeps_the_budget() -> None:
    entries = [_loaded(i, 800) for i in range(5)]
    cache = SchemaCache(max_bytes=int(2.5 * deep_size(entries[0])))
    for i, loaded in enumerate(entries):
        cache.put(f"k{i}", loaded)
    eventually_sync(lambda: len(cache) == 2, timeout=30, what="the cache trimmed to its budget")
    assert cache.total_bytes <= cache.max_bytes


def test_the_process_cache_takes_its_budget_from_the_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert Settings(env="test").schema_cache_bytes == 32 * MB
    monkeypatch.setenv("TDG_SCHEMA_CACHE_BYTES", str(3 * MB))
    get_settings.cache_clear()
    monkeypatch.setattr(schema_cache, "_cache", None)
    try:
        store = LocalStore(tmp_path)
        raw = _schema(7, 100)
        key = store.put_blob(raw)
        first = schema_cache.load_cached(store, key, "s.schema.json")
        assert schema_cache.load_cached(store, key, "s.schema.json") is first
        assert schema_cache.cache().max_bytes == 3 * MB
    finally:
        get_settings.cache_clear()


def test_memo_caches_keep_only_short_keys() -> None:
    calls: list[str] = []

    @short_key_cache(maxsize=8, max_key_chars=10)
    def echo(text: str) -> str:
        calls.append(text)
        return text.upper()

    assert echo("short") == echo("short") == "SHORT"
    assert echo("x" * 11) == echo("x" * 11)
    assert calls == ["short", "x" * 11, "x" * 11]  # the long key ran twice: it was never kept

    # a real one: a pattern's translation is memoised when short, recomputed when over the limit
    short, long = "[a-z]{3}-\\d+", "(?:ab|cd)" * (MAX_KEY_CHARS // 9 + 1)
    assert translate_ecma_pattern(short) is translate_ecma_pattern(short)
    first, again = translate_ecma_pattern(long), translate_ecma_pattern(long)
    assert first == again and first is not again
