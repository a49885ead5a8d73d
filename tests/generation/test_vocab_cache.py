"""The vocabulary cache (app/generation/values/vocab_cache.py): pools built from Faker once, read
back from a memory-mapped .npy file as the very same values in the same order (the engine's
output must not change by a byte), under a folder keyed by the Faker version; a folder that cannot
be written or a damaged file is no error."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from pathlib import Path

import faker
import numpy as np
import pytest

from app.generation.values import vocab, vocab_cache
from tests.paths import BENCH, REPO

# ja_JP: romanised name pairs; zh_CN, fa_IR, el_GR: other scripts; en_IE: synthetic phone numbers
LOCALES = ("en_US", "de_DE", "ja_JP", "zh_CN", "fa_IR", "el_GR", "en_IE")


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(vocab_cache.CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


def _builders(locale: str) -> dict[str, object]:
    """What vocab.py builds for `locale`, uncached: pool name -> a function building it."""
    return {
        "person": lambda: vocab._person(vocab._faker(locale, "person")),
        "address": lambda: vocab._address(vocab._faker(locale, "address"), locale),
        "phone_number": lambda: {"values": vocab._phone(locale)},
        **{name: (lambda n=name: {"values": vocab._simple(locale, n)}) for name in vocab._SIMPLE},
    }


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    return list(a) == list(b) and all(
        a[k].dtype == b[k].dtype == object and a[k].shape == b[k].shape and a[k].tolist() == b[k].tolist()
        for k in a
    )


@pytest.mark.parametrize("locale", LOCALES)
def test_cached_pools_are_the_built_ones(cache_dir: Path, locale: str) -> None:
    for name, build in _builders(locale).items():
        built = build()
        first = vocab_cache.cached_columns(locale, name, build)  # type: ignore[arg-type]
        path = vocab_cache.pool_path(locale, name)
        assert path is not None and path.is_file()
        assert path.is_relative_to(cache_dir / vocab_cache.cache_key())
        raw = np.load(path, mmap_mode="r")
        assert isinstance(raw, np.memmap) and raw.dtype == np.uint8
        again = vocab_cache.cached_columns(locale, name, lambda: pytest.fail("rebuilt"))
        assert _same(built, first) and _same(built, again), (locale, name)


def test_the_folder_is_keyed_by_the_faker_version(cache_dir: Path) -> None:
    key = vocab_cache.cache_key()
    assert f"-faker{faker.VERSION}-" in key
    assert vocab_cache.pool_path("de_DE", "address") == cache_dir / key / "de_DE" / "address.npy"
    assert vocab_cache.pool_path("../etc", "address") is None


def test_an_unwritable_folder_builds_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(vocab_cache.CACHE_ENV, str(blocker / "cache"))  # no folder can be made there
    built = {"values": np.array(["a", "b"], dtype=object)}
    assert _same(vocab_cache.cached_columns("en_US", "word", lambda: built), built)
    assert blocker.read_text() == "not a folder"


def test_a_damaged_file_is_rebuilt(cache_dir: Path) -> None:
    built = {"first": np.array(["Ana", "Jörg"], dtype=object), "last": np.array(["Ng", "Ōta"], dtype=object)}
    vocab_cache.cached_columns("en_US", "person", lambda: built)
    path = vocab_cache.pool_path("en_US", "person")
    assert path is not None
    path.write_bytes(path.read_bytes()[:-5])  # cut short
    assert _same(vocab_cache.cached_columns("en_US", "person", lambda: built), built)
    assert _same(vocab_cache.cached_columns("en_US", "person", lambda: pytest.fail("rebuilt")), built)


def test_values_that_cannot_be_stored_are_not_cached(cache_dir: Path) -> None:
    odd = {"values": np.array(["a\0b", "c"], dtype=object)}
    assert _same(vocab_cache.cached_columns("en_US", "odd", lambda: odd), odd)
    assert vocab_cache.encode(odd) is None and not cache_dir.exists()
    assert vocab_cache.encode({"values": np.array([1, 2], dtype=object)}) is None


def _write_pool(folder: str) -> list[str]:
    os.environ[vocab_cache.CACHE_ENV] = folder
    values = np.array([f"value {i}" for i in range(20_000)], dtype=object)
    return vocab_cache.cached_array("en_US", "race", lambda: values).tolist()  # type: ignore[no-any-return]


def test_processes_racing_to_write_a_pool_all_read_it_whole(cache_dir: Path) -> None:
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        results = pool.map(_write_pool, [str(cache_dir)] * 8)
    assert all(r == results[0] for r in results) and len(results[0]) == 20_000
    folder = cache_dir / vocab_cache.cache_key() / "en_US"
    assert sorted(p.name for p in folder.iterdir()) == ["race.npy"]  # no temporary file left


def test_a_read_only_checkout_with_a_warm_cache_generates_the_same_bytes(tmp_path: Path) -> None:
    """The output with the pools read from the cache equals the output with pools built in memory
    (the cache folder unwritable), for a locale with non-Latin names and addresses."""

    def run(cache: Path, out: Path) -> bytes:
        args = ["generate", str(BENCH / "customer_order.schema.json"), "-n", "300", "-f", "csv",
                "--seed", "11", "--locale", "ja_JP", "-o", str(out)]  # fmt: skip
        done = subprocess.run(
            [str(Path(sys.executable).parent / "tdg"), *args],
            cwd=REPO,
            env={**os.environ, vocab_cache.CACHE_ENV: str(cache)},
            capture_output=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return out.read_bytes()

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    in_memory = run(blocker / "cache", tmp_path / "a.csv")
    cold = run(tmp_path / "cache", tmp_path / "b.csv")  # builds and writes the pools
    warm = run(tmp_path / "cache", tmp_path / "c.csv")  # reads them
    assert any((tmp_path / "cache").rglob("address.npy"))
    assert in_memory == cold == warm
