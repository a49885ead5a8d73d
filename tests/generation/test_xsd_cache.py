"""The built-XSD cache of `tdg generate` (app/generation/schema/xsd_cache.py, issue 20): a schema
unpickled from the cache validates and generates exactly as a fresh build (same bytes), without
building xmlschema's meta-schema; a pickle is only read from a folder and file that are this
user's alone (pickle runs code while it loads), and anything unreadable is rebuilt."""

from __future__ import annotations

import json
import os
import pickle
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import xmlschema

from app.generation.schema import xsd_cache
from app.generation.schema.loader import load_schema
from app.generation.values.vocab_cache import CACHE_ENV
from tests.paths import BENCH, REPO

XSD = BENCH / "customer_order.xsd"

# `tdg generate` as its console script runs it; at exit, whether a meta-schema was built
RUN = """
import atexit, json, sys
out = sys.argv.pop(1)
def report():
    import xmlschema
    built = [cls.meta_schema.maps.built for cls in (xmlschema.XMLSchema10, xmlschema.XMLSchema11)]
    open(out, "w").write(json.dumps(built))
atexit.register(report)
sys.argv[0] = "tdg"
from app.cli import app
app()
"""

# an xs:assert whose XPath raises while it is evaluated: the error is worded from the parser's
# source, which an unpickled XPath 2 parser lacked
ASSERTING = """<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="item">
    <xs:complexType>
      <xs:attribute name="code" type="xs:string"/>
      <xs:assert test="xs:integer(@code) gt 0"/>
    </xs:complexType>
  </xs:element>
</xs:schema>"""


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache" / f"xsd{xsd_cache.FORMAT}"


def _generate(cache_root: Path, out: Path, fmt: str) -> list[bool]:
    """A `tdg generate` of the bench XSD in a fresh process: which meta-schemas it built."""
    report = out.with_suffix(".built")
    args = ["generate", str(XSD), "-n", "300", "-f", fmt, "--seed", "7", "-o", str(out)]
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(report), *args],
        cwd=REPO,
        env={**os.environ, CACHE_ENV: str(cache_root)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return list(json.loads(report.read_text()))


@pytest.mark.parametrize("fmt", ["xml", "json"])
def test_a_cached_schema_writes_the_same_bytes_without_a_meta_schema(tmp_path: Path, fmt: str) -> None:
    root = tmp_path / "cache"
    assert _generate(root, tmp_path / "cold", fmt)[0] is True  # built, then stored
    pickles = list((root / f"xsd{xsd_cache.FORMAT}").glob("*.pickle"))
    assert len(pickles) == 1
    # the bench XSD has xs:key and xs:unique: their XPath parsers come back in a process that
    # never created one, and the guard validates all 300 records with the unpickled schema
    assert _generate(root, tmp_path / "warm", fmt) == [False, False]
    assert (tmp_path / "warm").read_bytes() == (tmp_path / "cold").read_bytes()
    # no cache at all (a folder open to others is never used): the same bytes again
    (root / f"xsd{xsd_cache.FORMAT}").chmod(0o755)
    assert _generate(root, tmp_path / "unused", fmt)[0] is True
    assert (tmp_path / "unused").read_bytes() == (tmp_path / "cold").read_bytes()


def test_files_are_private_and_only_tdg_generate_uses_the_cache(cache: Path) -> None:
    load_schema(XSD.read_bytes(), XSD.name)
    assert not cache.exists()  # the server's loads (no `enabled()`) keep nothing
    with xsd_cache.enabled():
        load_schema(XSD.read_bytes(), XSD.name)
    (pickle_file,) = cache.glob("*.pickle")
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert stat.S_IMODE(pickle_file.stat().st_mode) == 0o600
    assert [p.name for p in cache.iterdir()] == [pickle_file.name]  # no temporary file left


def test_an_unpickled_xpath_parser_words_assertion_errors_as_a_fresh_one(cache: Path) -> None:
    fresh = xmlschema.XMLSchema11(ASSERTING)
    xsd_cache.store("asserting", fresh)
    cached = xsd_cache.load("asserting")
    assert isinstance(cached, xmlschema.XMLSchema11) and cached is not fresh
    doc = '<item code="abc"/>'
    errors = [(e.reason, e.path) for e in cached.iter_errors(doc)]
    assert errors == [(e.reason, e.path) for e in fresh.iter_errors(doc)]
    assert "could not convert 'abc' to xs:integer" in (errors[0][0] or "")
    assert cached.is_valid('<item code="12"/>')


class _Planted:
    """What a hostile pickle would do: run code (here, create a file) while it loads."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, ...]:
        return (Path.touch, (self.marker,))


def test_a_pickle_others_could_have_written_is_never_loaded(cache: Path, tmp_path: Path) -> None:
    marker = tmp_path / "code-ran"
    cache.mkdir(parents=True, mode=0o700)
    planted = cache / "planted.pickle"
    planted.write_bytes(pickle.dumps(_Planted(marker)))
    for file_mode, folder_mode in ((0o644, 0o700), (0o620, 0o700), (0o600, 0o750), (0o600, 0o707)):
        planted.chmod(file_mode)
        cache.chmod(folder_mode)
        assert xsd_cache.load("planted") is None
        assert not marker.exists(), (oct(file_mode), oct(folder_mode))
    cache.chmod(0o700)
    planted.chmod(0o600)
    link = cache / "linked.pickle"
    link.symlink_to(planted)
    assert xsd_cache.load("linked") is None  # a link is not followed
    assert not marker.exists()
    # the check is what keeps the code from running: the same file, private, is loaded
    xsd_cache.load("planted")
    assert marker.exists()


def test_a_damaged_pickle_is_rebuilt_and_rewritten(cache: Path) -> None:
    with xsd_cache.enabled():
        first = load_schema(XSD.read_bytes(), XSD.name)
        (pickle_file,) = cache.glob("*.pickle")
        whole = pickle_file.read_bytes()
        pickle_file.write_bytes(whole[: len(whole) // 2])
        again = load_schema(XSD.read_bytes(), XSD.name)
    assert again.roots == first.roots and again.default_root == first.default_root
    assert len(pickle_file.read_bytes()) > len(whole) // 2  # written again, whole
    assert isinstance(xsd_cache.load(pickle_file.stem), xmlschema.XMLSchema10)


def test_the_folder_keeps_the_most_recently_used_pickles(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(xsd_cache, "MAX_FILES", 3)
    for i in range(3):
        xsd_cache.store(f"k{i}", {"schema": i})
        os.utime(cache / f"k{i}.pickle", (1000 + i, 1000 + i))
    assert xsd_cache.load("k0") == {"schema": 0}  # used: now the most recent
    xsd_cache.store("k3", {"schema": 3})
    assert sorted(p.stem for p in cache.glob("*.pickle")) == ["k0", "k2", "k3"]
