"""The vocabularies of vocab.py compiled once into NumPy files and memory-mapped afterwards.

Building a locale's pools from Faker's data costs about a second (the address pool alone 0.6 s),
which every process paid before its first record. Each pool is written, the first time any
process builds it, to one `.npy` file (a UTF-8 byte array: a header naming the columns and their
lengths, then every value, NUL-separated) under a folder keyed by everything the pools depend on:
the Faker version, the Python version (Faker draws from `random`) and the source of the builders
(vocab.py, locales.py), so a new Faker or an edited builder never reads stale pools. Later
processes memory-map the file and split it: no Faker import, no rebuild.

The folder is TDG_CACHE_DIR, else $XDG_CACHE_HOME/tdg, else ~/.cache/tdg. Writes are race-safe
(a temporary file in the same folder, then `os.replace`: a reader sees a whole file or none) and
the content is the same whoever writes it. A folder that cannot be written (a read-only home, a
sandbox) is no error: the pools are then built in memory, as before. A damaged file is rebuilt.
Design notes: docs/generation.md (values/vocab.py)."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import sys
import zlib
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np

CACHE_ENV = "TDG_CACHE_DIR"
FORMAT = 1  # of the files below; bump on a change of layout
_MAGIC = "tdg-vocab"
_SEP = "\0"
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}\Z")
_BUILDERS = ("vocab.py", "locales.py")  # whose source the pools follow

Columns = dict[str, np.ndarray]


def cache_root() -> Path | None:
    """The cache folder (not created here), or None when no home folder can be found."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "tdg"
    try:
        return Path.home() / ".cache" / "tdg"
    except RuntimeError:  # no HOME and no password entry
        return None


def _faker_version() -> str:
    """Faker's version, read from its package without importing it (an import costs 0.1 s)."""
    try:
        spec = importlib.util.find_spec("faker")
        if spec is not None and spec.origin:
            found = re.search(r'^VERSION\s*=\s*["\']([^"\']+)', Path(spec.origin).read_text(), re.M)
            if found:
                return found.group(1)
    except (ImportError, OSError, ValueError):
        pass
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("faker")
    except PackageNotFoundError:
        return "unknown"


@lru_cache(maxsize=1)
def cache_key() -> str:
    """The folder name of this Faker's, Python's and builders' pools."""
    here = Path(__file__).parent
    crc = 0
    for name in _BUILDERS:
        try:
            crc = zlib.crc32((here / name).read_bytes(), crc)
        except OSError:  # no source shipped: the versions alone key the pools
            crc = zlib.crc32(name.encode(), crc)
    py = f"{sys.version_info[0]}{sys.version_info[1]}"
    return f"vocab{FORMAT}-faker{_faker_version()}-py{py}-{crc:08x}"


def pool_path(locale: str, name: str) -> Path | None:
    root = cache_root()
    if root is None or not (_NAME.match(locale) and _NAME.match(name)):
        return None
    return root / cache_key() / locale / f"{name}.npy"


def encode(columns: Columns) -> np.ndarray | None:
    """The file's byte array, or None when a value cannot be stored (not a str, or holds NUL)."""
    parts = [_MAGIC, str(len(columns))]
    values: list[str] = []
    for name, col in columns.items():
        if col.dtype != object or col.ndim != 1:
            return None
        items = col.tolist()
        if not all(type(x) is str for x in items):
            return None
        parts += [name, str(len(items))]
        values += items
    text = _SEP.join(parts + values)
    if text.count(_SEP) != len(parts) + len(values) - 1:
        return None  # a value holds the separator
    return np.frombuffer(text.encode("utf-8", "surrogatepass"), dtype=np.uint8)


def decode(raw: np.ndarray) -> Columns | None:
    """The columns held in a file's byte array, or None when it is not a whole, valid one."""
    try:
        items = raw.tobytes().decode("utf-8", "surrogatepass").split(_SEP)
        if items[0] != _MAGIC:
            return None
        ncols = int(items[1])
        heads = items[2 : 2 + 2 * ncols]
        counts = [int(c) for c in heads[1::2]]
        if len(heads) != 2 * ncols or 2 + 2 * ncols + sum(counts) != len(items):
            return None
    except (UnicodeDecodeError, ValueError, IndexError):
        return None
    out: Columns = {}
    at = 2 + 2 * ncols
    for name, count in zip(heads[0::2], counts, strict=True):
        col = np.empty(count, dtype=object)
        col[:] = items[at : at + count]
        out[name] = col
        at += count
    return out


def _read(path: Path) -> Columns | None:
    try:
        raw = np.load(path, mmap_mode="r", allow_pickle=False)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return None  # damaged: rebuilt and rewritten
    if raw.dtype != np.uint8 or raw.ndim != 1:
        return None
    if raw.size == 0:
        return None
    return decode(raw)


def _write(path: Path, data: np.ndarray) -> None:
    """`data` to `path` through a temporary file and `os.replace`; no error when not writable."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, data, allow_pickle=False)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def cached_columns(locale: str, name: str, build: Callable[[], Columns]) -> Columns:
    """Pool `name` of `locale` from the cache, else built by `build()` and stored for next time."""
    path = pool_path(locale, name)
    if path is not None:
        got = _read(path)
        if got is not None:
            return got
    built = build()
    if path is not None:
        data = encode(built)
        if data is not None:
            _write(path, data)
    return built


def cached_array(locale: str, name: str, build: Callable[[], np.ndarray]) -> np.ndarray:
    """A one-column pool: cached_columns for a single object array."""
    return cached_columns(locale, name, lambda: {"values": build()})["values"]
