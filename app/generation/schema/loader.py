"""Turn uploaded schema bytes into a `LoadedSchema`: size and encoding checks, type detection from the
content, safe zip extraction, then the dialect-specific loaders.
Design notes: docs/generation.md."""

from __future__ import annotations

import io
import lzma
import posixpath
import re
import shutil
import tempfile
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from app.generation.errors import SchemaError, SchemaTooLarge
from app.generation.guard import RecordValidator
from app.generation.model import FieldTree, Kind
from app.generation.schema.decode import decode_utf8
from app.generation.schema.expansion import refuse_costly_fields

# The spec says "at most 10 MB". The limit is 10 MiB: it admits a file of 10 MB in either reading
# (10,000,000 or 10,485,760 bytes), so no file the spec allows is refused. Every message, the
# README and the web interface name it as MAX_SCHEMA_SIZE does.
MAX_SCHEMA_BYTES = 10 * 1024 * 1024


def size_text(limit: int) -> str:
    """A byte limit as the messages name it: "10 MiB (10,485,760 bytes)"."""
    return f"{limit / 2**20:g} MiB ({limit:,} bytes)"


MAX_SCHEMA_SIZE = size_text(MAX_SCHEMA_BYTES)
MAX_ZIP_MEMBERS = 200
# stored, deflate, bzip2, lzma: what zipfile reads (deflate64, method 9, and AES, 99, it cannot)
_ZIP_METHODS = {0: "stored", 8: "deflate", 12: "bzip2", 14: "lzma"}
# a path component longer than this cannot be a file name on the disk the members are written to
_MAX_NAME_BYTES = 255
# what reading a damaged member raises: zipfile's own errors and its decompressors'
_UNREADABLE = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError, ValueError)
_ZIP_MAGIC = b"PK\x03\x04"
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
_SCHEMA_LOCATION = re.compile(rb"""schemaLocation\s*=\s*["']([^"']+)["']""")
_TARGET_NAMESPACE = re.compile(rb"""targetNamespace\s*=\s*["']([^"']*)["']""")
_IMPORT_NAMESPACE = re.compile(
    rb"""<(?:[A-Za-z_][\w.-]*:)?import\b[^>]*?\bnamespace\s*=\s*["']([^"']*)["']"""
)


class SchemaDocument(Protocol):
    """What a dialect loader gives (JsonSchemaDocument, XsdDocument)."""

    @property
    def version(self) -> str: ...
    @property
    def roots(self) -> list[str]: ...
    @property
    def default_root(self) -> str: ...
    def canonical_root(self, root: str) -> str | None: ...
    def field_tree(self, root: str) -> FieldTree: ...
    def record_validator(self, root: str) -> RecordValidator: ...


@dataclass
class LoadedSchema:
    """A parsed, validated schema upload; field trees are built lazily per record root."""

    type: Literal["json_schema", "xsd"]
    version: str
    roots: list[str]
    default_root: str
    filename: str | None
    # the dialect loader behind this schema (JsonSchemaDocument or XsdDocument)
    document: SchemaDocument = field(repr=False)
    _trees: dict[str, FieldTree] = field(default_factory=dict, repr=False)
    _validators: dict[str, RecordValidator] = field(default_factory=dict, repr=False)

    def resolve_root(self, root: str | None) -> str:
        """The canonical root name for `root` (None -> default), or SchemaError."""
        if root is None:
            return self.default_root
        canonical = self.document.canonical_root(root)
        if canonical is None:
            raise SchemaError(f"Unknown root {root!r}; the schema's roots are: {', '.join(self.roots[:20])}.")
        return canonical

    def field_tree(self, root: str | None = None) -> FieldTree:
        name = self.resolve_root(root)
        tree = self._trees.get(name)
        if tree is None:
            tree = self.document.field_tree(name)
            refuse_costly_fields(tree, self.type == "xsd")  # before anything is drawn from it, in every process
            self._trees[name] = tree
        return tree

    def record_validator(self, root: str | None = None) -> RecordValidator:
        name = self.resolve_root(root)
        validator = self._validators.get(name)
        if validator is None:
            validator = self.document.record_validator(name)
            self._validators[name] = validator
        return validator

    @property
    def built_parts(self) -> int:
        """Field trees and record validators built so far (each root's are built on first use):
        a cache holding this schema measures it again when the number changes."""
        return len(self._trees) + len(self._validators)

    @property
    def field_count(self) -> int:
        """Leaf (scalar) fields of the default root; a subtree shared with a REF target counts once."""
        tree = self.field_tree()
        seen: set[int] = set()
        count = 0
        for start in [tree.root, *tree.definitions.values()]:
            for node in start.walk():
                if id(node) in seen:
                    continue
                seen.add(id(node))
                if node.kind not in (Kind.OBJECT, Kind.ARRAY, Kind.CHOICE, Kind.REF):
                    count += 1
        return count


def sanitise_filename(filename: str | None) -> str | None:
    """Basename only, safe characters only, at most 200 characters; None when nothing is left."""
    if not filename:
        return None
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    base = _SAFE_NAME.sub("_", base).strip("._")[:200]
    return base or None


def load_schema(content: bytes, filename: str | None = None) -> LoadedSchema:
    """Parse an uploaded schema; raises SchemaTooLarge above 10 MiB and SchemaError for anything else wrong."""
    if len(content) > MAX_SCHEMA_BYTES:
        raise SchemaTooLarge(f"The schema is {len(content):,} bytes; the limit is {MAX_SCHEMA_SIZE}.")
    safe_name = sanitise_filename(filename)
    if content.startswith(_ZIP_MAGIC):
        return _load_zip(content, safe_name)
    text = decode_utf8(content)
    stripped = text.lstrip()
    if not stripped:
        raise SchemaError("The schema file is empty.")
    # the dialect loaders are imported on first use (xmlschema and jsonschema_rs are slow to import);
    # neither imports this module, so this is not an import cycle
    if stripped.startswith("<"):
        from app.generation.schema.xsd import load_xsd_text

        return _loaded("xsd", load_xsd_text(text), safe_name)
    from app.generation.schema.json_schema import load_json_schema

    return _loaded("json_schema", load_json_schema(text), safe_name)


def _loaded(
    kind: Literal["json_schema", "xsd"], document: SchemaDocument, filename: str | None
) -> LoadedSchema:
    return LoadedSchema(
        type=kind,
        version=document.version,
        roots=list(document.roots),
        default_root=document.default_root,
        filename=filename,
        document=document,
    )


def _load_zip(content: bytes, filename: str | None) -> LoadedSchema:
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
        infos = archive.infolist()
    except (*_UNREADABLE, NotImplementedError):
        raise SchemaError("The upload looks like a zip archive but cannot be read.") from None
    if len(infos) > MAX_ZIP_MEMBERS:
        raise SchemaError(f"The zip archive has {len(infos)} members; at most {MAX_ZIP_MEMBERS} are allowed.")
    members = _safe_members(infos)
    if not any(n.lower().endswith(".xsd") for _, n in members):
        raise SchemaError("The zip archive contains no .xsd file.")
    data: dict[str, bytes] = {}
    total = 0
    for info, normalised in members:
        blob = _read_member(archive, info)
        total += len(blob)
        if total > MAX_SCHEMA_BYTES:
            raise SchemaTooLarge(
                f"The zip archive unpacks to more than {MAX_SCHEMA_SIZE}; that is the limit."
            )
        data[normalised] = blob
    return load_xsd_members(data, filename)


def _safe_members(infos: list[zipfile.ZipInfo]) -> list[tuple[zipfile.ZipInfo, str]]:
    """The file members with their normalised paths, after every check that needs no decompression:
    safe relative paths that can be files on disk (no name twice, none both a file and a folder),
    no encryption, a compression method zipfile reads, and declared sizes within the limit."""
    members: list[tuple[zipfile.ZipInfo, str]] = []
    total = 0
    for info in infos:
        name = info.filename
        if name.endswith("/"):  # a folder (ZipInfo.is_dir raises IndexError on an empty name)
            continue
        normalised = posixpath.normpath(name.replace("\\", "/"))
        if (
            name.startswith(("/", "\\"))
            or re.match(r"^[A-Za-z]:", name)
            or normalised.startswith("..")
            or "/../" in f"/{name.replace(chr(92), '/')}/"
        ):
            raise SchemaError(f"The zip member {name!r} has an absolute or parent-relative path.")
        if normalised in (".", "") or any(
            len(part.encode("utf-8", "surrogateescape")) > _MAX_NAME_BYTES for part in normalised.split("/")
        ):
            raise SchemaError(f"The zip member {name[:100]!r} has no usable file name (empty, or a part "
                              f"longer than {_MAX_NAME_BYTES} bytes).")
        if info.flag_bits & 0x1:
            raise SchemaError(f"The zip member {name!r} is encrypted.")
        if info.compress_type not in _ZIP_METHODS:
            raise SchemaError(
                f"The zip member {name!r} is compressed with method {info.compress_type}"
                f"{' (deflate64)' if info.compress_type == 9 else ''}, which cannot be read; "
                f"use {', '.join(_ZIP_METHODS.values())}."
            )
        total += info.file_size
        if total > MAX_SCHEMA_BYTES:
            raise SchemaTooLarge(
                f"The zip archive unpacks to more than {MAX_SCHEMA_SIZE}; that is the limit."
            )
        members.append((info, normalised))
    names = [n for _, n in members]
    seen: set[str] = set()
    for normalised in names:
        if normalised in seen:
            raise SchemaError(f"The zip archive holds {normalised!r} twice.")
        seen.add(normalised)
    folders = {posixpath.dirname(n) for n in names} - {""}
    folders |= {f.rsplit("/", i)[0] for f in folders for i in range(1, f.count("/") + 1)}
    clash = sorted(seen & folders)
    if clash:
        raise SchemaError(f"The zip archive holds {clash[0]!r} both as a file and as a folder.")
    return members


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """A member's bytes, read at most one byte past its declared size: a hostile archive's sizes
    may lie. A damaged member (bad CRC, broken compressed stream, a size that is not the one
    declared) is a SchemaError naming it."""
    name = info.filename
    try:
        with archive.open(info) as src:
            blob = src.read(info.file_size + 1)
    except NotImplementedError as exc:  # zipfile's own words: "zip file version 6.3", "strong encryption"
        raise SchemaError(f"The zip member {name!r} cannot be read: it needs a zip feature that is not "
                          f"supported ({exc}).") from None
    except _UNREADABLE as exc:
        reason = "its CRC-32 does not match its content" if "CRC" in str(exc) else "its data is damaged"
        raise SchemaError(f"The zip member {name!r} cannot be read: {reason}.") from None
    if len(blob) != info.file_size:
        raise SchemaError(
            f"The zip member {name!r} cannot be read: it declares {info.file_size:,} bytes but "
            f"unpacks to {'more' if len(blob) > info.file_size else f'{len(blob):,}'}."
        )
    return blob


def load_xsd_members(data: dict[str, bytes], filename: str | None, main: str | None = None) -> LoadedSchema:
    """A multi-file XSD from its files (relative path -> bytes, already checked as safe paths): they
    are written to a private directory, which is all the main schema may read. `main` defaults to
    main.xsd, else the one .xsd no other file includes or imports."""
    from app.generation.schema.xsd import load_xsd_directory, scan_members

    xsd_members = [n for n in data if n.lower().endswith(".xsd")]
    workdir = Path(tempfile.mkdtemp(prefix="tdg-xsd-"))
    try:
        for name, blob in data.items():
            target = workdir / name
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(blob)
            except OSError:  # a name the disk refuses (the checks above leave few)
                raise SchemaError(f"The zip member {name[:100]!r} cannot be unpacked under its name.") from None
        scans = scan_members(data)  # DTDs and bad encodings are refused before anything else
        document = load_xsd_directory(workdir, main or _main_member(xsd_members, data), scans)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return _loaded("xsd", document, filename)


def _main_member(xsd_members: list[str], data: dict[str, bytes]) -> str:
    named_main = sorted(
        (m for m in xsd_members if posixpath.basename(m).lower() == "main.xsd"),
        key=lambda m: (m.count("/"), m),
    )
    if named_main:
        return named_main[0]
    referenced: set[str] = set()
    imported: set[bytes] = set()
    for member, blob in data.items():
        base = posixpath.dirname(member)
        for loc in _SCHEMA_LOCATION.findall(blob):
            target = posixpath.normpath(posixpath.join(base, loc.decode("utf-8", "replace")))
            referenced.add(target)
        imported.update(
            ns for ns in _IMPORT_NAMESPACE.findall(blob) if ns not in _TARGET_NAMESPACE.findall(blob)
        )
    # a member whose namespace another member imports is a dependency, not the main schema
    not_included = [m for m in xsd_members if m not in referenced]
    candidates = [
        m for m in not_included if not imported.intersection(_TARGET_NAMESPACE.findall(data[m])[:1])
    ]
    if len(candidates) == 1:
        return candidates[0]
    if not candidates and len(not_included) == 1:  # namespaces import each other in a circle
        return not_included[0]
    raise SchemaError(
        "The zip archive has no main.xsd and not exactly one .xsd file that no other file includes "
        f"({len(candidates)} candidates); name the main schema main.xsd."
    )
