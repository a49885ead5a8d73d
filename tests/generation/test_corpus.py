"""Every schema of the real-world corpus (tests/corpus/manifest.json) loads, yields a field tree
for its default root and a JSON-serialisable repr, with the manifest's type and version.

A few entries are refused on purpose, each for a rule of the product (DESIGN §12), and are
listed below with the reason their refusal must name.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest

from app.generation.errors import GenerationError
from app.generation.schema.loader import load_schema
from app.generation.schema.repr import schema_repr

CORPUS = Path(__file__).resolve().parents[1] / "corpus"

_OUTSIDE = "points outside the uploaded document"
_NO_ELEMENT = "declares no global element"
_ABSTRACT_ONLY = "global elements are all abstract"
# id -> the refusal's reason: uploads are one JSON document; an XSD
# without a global element, or with only abstract ones, has no record to generate
REFUSED = {
    "validate-pyproject": _OUTSIDE,  # $refs other files by $id
    "links-2019-09": _OUTSIDE,  # $ref to the hyper-schema metaschema, not shipped
    "oas-3.1-dialect": _OUTSIDE,  # $ref to the OpenAPI base vocabulary, not shipped
    "cyclonedx-bom-1.6": _OUTSIDE,  # $refs sibling files
    "cyclonedx-bom-1.2-strict": _OUTSIDE,
    "xml-namespace": _NO_ELEMENT,  # attribute/type libraries
    "saml-dce": _NO_ELEMENT,
    "saml-x500": _NO_ELEMENT,
    "cyclonedx-spdx-xsd": _NO_ELEMENT,
    "xlink": _ABSTRACT_ONLY,  # attribute groups and abstract heads for other schemas to use
}


def _manifest() -> list[dict[str, Any]]:
    path = CORPUS / "manifest.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else []


def _upload(entry: dict[str, Any]) -> bytes:
    """The file itself, or for a multi-file XSD a zip of all its files with their relative layout."""
    files = [Path(f) for f in entry["files"]]
    if len(files) == 1 or entry["type"] == "json_schema":
        return (CORPUS / files[0]).read_bytes()
    common = Path(os.path.commonpath([str(f.parent) for f in files]))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for f in files:
            zf.write(CORPUS / f, str(f.relative_to(common)))
    return buf.getvalue()


ENTRIES = _manifest()


def test_manifest_present() -> None:
    assert len(ENTRIES) >= 20, "the corpus manifest should list the collected schemas"
    assert set(REFUSED) <= {e["id"] for e in ENTRIES}


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["id"] for e in ENTRIES])
def test_corpus_entry(entry: dict[str, Any]) -> None:
    content = _upload(entry)
    if entry["id"] in REFUSED:
        with pytest.raises(GenerationError, match=REFUSED[entry["id"]]):
            load_schema(content, Path(entry["path"]).name)
        return
    loaded = load_schema(content, Path(entry["path"]).name)
    assert loaded.type == entry["type"]
    assert loaded.version == entry["version"]
    assert loaded.default_root in loaded.roots
    tree = loaded.field_tree()
    assert tree.root is not None
    assert loaded.field_count >= 0
    representation = schema_repr(loaded)
    assert representation["root"] == loaded.default_root
    json.dumps(representation)
    for ref in {n.ref for d in [tree.root, *tree.definitions.values()] for n in d.walk() if n.ref}:
        assert ref in tree.definitions, f"REF {ref} has no definition"


def test_corpus_concrete_facts() -> None:
    by_id = {e["id"]: e for e in ENTRIES}
    if "vehicles" in by_id:
        loaded = load_schema(_upload(by_id["vehicles"]))
        assert loaded.default_root == "vehicles" and loaded.version == "1.0"
    if "github-workflows" in by_id:
        loaded = load_schema(_upload(by_id["github-workflows"]))
        assert loaded.version == "draft-07"
        tree = loaded.field_tree()
        assert tree.root.child("jobs") is not None and tree.root.child("jobs").required
