"""Schemas read from the local disk by `tdg generate`: one file, or a multi-file XSD read from the
main schema's own folder (or a folder given as the schema), never from above that folder. Uploads
keep their own rules (one document, or a zip). Design notes: docs/generation.md."""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from app.generation.errors import SchemaError, SchemaTooLarge
from app.generation.gc_pause import collect_if_grown
from app.generation.schema.loader import (
    MAX_SCHEMA_BYTES,
    MAX_ZIP_MEMBERS,
    LoadedSchema,
    load_schema,
    load_xsd_members,
)

_DIRECTIVE = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?(?:include|import|redefine|override)\b")
_SCHEMA_LOCATION = re.compile(rb"""schemaLocation\s*=\s*["']([^"']+)["']""")
_REMOTE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def load_schema_path(path: Path) -> LoadedSchema:
    """`path` as a schema: a folder is a multi-file XSD (main.xsd, or its one .xsd no other file
    includes); an .xsd that includes or imports others is read with the .xsd files of its folder.
    A large load's cyclic garbage is collected after it (`collect_if_grown`)."""
    loaded = _load_path(path)
    collect_if_grown()
    return loaded


def _load_path(path: Path) -> LoadedSchema:
    if path.is_dir():
        return _load_folder(path, None)
    content = path.read_bytes()
    if path.suffix.lower() == ".xsd" and _DIRECTIVE.search(content):
        return _load_folder(path.parent, path.name)
    return load_schema(content, path.name)


def _load_folder(folder: Path, main: str | None) -> LoadedSchema:
    root = folder.resolve()
    data: dict[str, bytes] = {}
    total = 0
    for file in sorted(root.rglob("*.xsd")):
        if not file.is_file() or not file.resolve().is_relative_to(root):
            continue  # a link out of the folder is never followed
        if len(data) == MAX_ZIP_MEMBERS:
            raise SchemaError(
                f"The folder {folder.name}/ holds more than {MAX_ZIP_MEMBERS} .xsd files; "
                "put the schema's files in a folder of their own."
            )
        blob = file.read_bytes()
        total += len(blob)
        if total > MAX_SCHEMA_BYTES:
            raise SchemaTooLarge(
                f"The .xsd files of the folder {folder.name}/ hold more than {MAX_SCHEMA_BYTES} bytes; "
                "that is the limit."
            )
        data[file.relative_to(root).as_posix()] = blob
    if not data:
        raise SchemaError(f"The folder {folder.name}/ contains no .xsd file.")
    for member, blob in data.items():
        _check_locations(folder, member, blob)
    return load_xsd_members(data, main or folder.name, main)


def _check_locations(folder: Path, member: str, blob: bytes) -> None:
    """Every relative include/import of `member` stays inside `folder` (remote locations are left to
    the loader, which resolves imports by namespace among the folder's files and reads nothing else)."""
    for raw in _SCHEMA_LOCATION.findall(blob):
        location = raw.decode("utf-8", "replace")
        if _REMOTE.match(location):
            continue
        target = posixpath.normpath(posixpath.join(posixpath.dirname(member), location))
        if location.startswith(("/", "\\")) or target == ".." or target.startswith("../"):
            raise SchemaError(
                f"{member} includes or imports {location[:200]!r}, which is outside the schema's "
                f"folder {folder.name}/; only files inside that folder are read."
            )
