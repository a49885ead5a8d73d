"""Built XSD schemas kept on disk between `tdg generate` runs (issue 20).

Building a single-file XSD costs xmlschema its meta-schema (about 80 ms, two thirds of it compiling
the identity-constraint XPath regexes of Unicode name classes) plus the schema itself, on every run.
A built schema is pickled once into `<cache folder>/xsd<FORMAT>/<sha256>.pickle`, keyed by the
schema text, the build options and the Python, xmlschema and elementpath versions; a later run
unpickles it (about 20 ms) and validates with it exactly as with a fresh build.

Pickle runs code while it loads, so a file is only trusted when no one else could have written it:
the folder is created 0700 and the files 0600 (mkstemp), and a folder or file that is not ours, is
open to others or is not a plain file is never read. Any failure to read or unpickle (a damaged,
truncated or stale file) is no error: the schema is built and the file rewritten. Only callers that
ask for it (`enabled()`, `tdg generate`) use the cache: the server's uploads are not kept on disk.
The folder is vocab_cache's (TDG_CACHE_DIR, else the XDG cache); it holds at most MAX_FILES files."""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import pickle
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from app.generation.gc_pause import gc_paused
from app.generation.values.vocab_cache import cache_root

FORMAT = 1  # of the files below; bump when what is pickled changes
MAX_FILES = 32  # the oldest beyond these are removed
MAX_BYTES = 32 * 1024 * 1024  # a larger pickle is not kept (and not read)
_STALE_TMP_S = 3600  # a temporary file this old was left by a killed writer
_ENABLED: ContextVar[bool] = ContextVar("tdg_xsd_disk_cache", default=False)


@contextlib.contextmanager
def enabled() -> Iterator[None]:
    """Single-file XSDs loaded inside this block go through the disk cache."""
    token = _ENABLED.set(True)
    try:
        yield
    finally:
        _ENABLED.reset(token)


def is_enabled() -> bool:
    return _ENABLED.get()


def cache_key(source: str, options: str) -> str:
    """The file name of a schema built from `source` with `options`, by these library versions."""
    import elementpath
    import xmlschema

    digest = hashlib.sha256()
    for part in (str(FORMAT), sys.version, xmlschema.__version__, elementpath.__version__, options):
        digest.update(part.encode("utf-8") + b"\0")
    digest.update(source.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


class _SchemaPickler(pickle.Pickler):
    """Pickles elementpath's XPath 2 parsers with the source they last parsed. Their own
    `__getstate__` keeps the instance dict only, so an unpickled parser had none of the slots of
    elementpath's Parser (source, tokens, start token): the first failing xs:assert then raised
    AttributeError while wording its error, where a fresh build reports the failure.
    `_restore_parser` gives the parser back its slots as `Parser.parse` leaves them."""

    def reducer_override(self, obj: Any) -> Any:
        from elementpath import XPath2Parser

        if not isinstance(obj, XPath2Parser):
            return NotImplemented
        # the state is set once the parser is memoised: the schema it refers to refers back to it
        state = (obj.__getstate__(), getattr(obj, "source", ""))
        return _new_parser, (type(obj),), state, None, None, _restore_parser


def _new_parser(cls: type) -> object:
    return object.__new__(cls)


def _restore_parser(parser: Any, state: tuple[dict[str, Any], str]) -> None:
    attributes, source = state
    parser.__dict__.update(attributes)
    cls = type(parser)
    if "(start)" not in cls.symbol_table:
        # what the first parser's __init__ registers (`Parser.build`, which also compiles the
        # tokenizer; that is left to the first parser created, as without the cache)
        cls.register("(start)")
    parser.source = source
    parser.tokens = iter(())
    parser.next_match = None
    parser._start_token = parser.token = parser.next_token = cls.symbol_table["(start)"](parser)


def _dumps(schema: Any) -> bytes:
    buffer = io.BytesIO()
    _SchemaPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(schema)
    return buffer.getvalue()


def _private(st: os.stat_result) -> bool:
    """Owned by this user and neither readable nor writable by anyone else (never, where the
    system has no file owners to check: no cache there)."""
    getuid = getattr(os, "getuid", None)
    return getuid is not None and st.st_uid == getuid() and not st.st_mode & 0o077


def _folder(create: bool) -> Path | None:
    """The cache's folder when it is this user's alone (created 0700 when `create`), else None."""
    root = cache_root()
    if root is None:
        return None
    folder = root / f"xsd{FORMAT}"
    try:
        if create:
            root.mkdir(parents=True, exist_ok=True)
            with contextlib.suppress(FileExistsError):
                folder.mkdir(mode=0o700)
        st = os.lstat(folder)  # lstat: a symbolic link is refused, not followed
    except OSError:
        return None
    return folder if stat.S_ISDIR(st.st_mode) and _private(st) else None


def load(key: str) -> Any | None:
    """The schema stored under `key`, or None (no file, not trusted, or not loadable)."""
    folder = _folder(create=False)
    if folder is None:
        return None
    path = folder / f"{key}.pickle"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode) or not _private(st) or st.st_size > MAX_BYTES:
                return None
            blob = fh.read()
        with gc_paused():
            schema = pickle.loads(blob)
        os.utime(path)  # recently used: pruned last
    except Exception:  # any damage or staleness: ignored, the schema is built and stored again
        return None
    return schema


def store(key: str, schema: Any) -> None:
    """Pickle `schema` under `key`; nothing happens when it cannot be (an unwritable folder, a
    schema too deep to pickle, a pickle above MAX_BYTES)."""
    try:
        blob = _dumps(schema)
    except Exception:  # RecursionError on a deeply nested schema, an unpicklable part
        return
    folder = _folder(create=True) if len(blob) <= MAX_BYTES else None
    if folder is None:
        return
    try:
        fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=folder)  # created 0600
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(blob)
        os.replace(tmp, folder / f"{key}.pickle")  # readers see a whole file or none
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return
    _prune(folder)


def _prune(folder: Path) -> None:
    """At most MAX_FILES pickles, the least recently used removed first; stale temporary files go."""
    pickles: list[tuple[float, Path]] = []
    now = time.time()
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            with contextlib.suppress(OSError):
                mtime = entry.stat(follow_symlinks=False).st_mtime
                if entry.name.endswith(".pickle"):
                    pickles.append((mtime, Path(entry.path)))
                elif entry.name.endswith(".tmp") and now - mtime > _STALE_TMP_S:
                    os.unlink(entry.path)
    for _, path in sorted(pickles)[: max(0, len(pickles) - MAX_FILES)]:
        with contextlib.suppress(OSError):
            path.unlink()
