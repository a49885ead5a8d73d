"""Integrity of the third-party schema corpus: files match the manifest, and every schema loads offline."""

import hashlib
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
import xmlschema
from jsonschema.validators import validator_for

CORPUS = Path(__file__).parent
MANIFEST: list[dict[str, Any]] = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
JSON_ENTRIES = [e for e in MANIFEST if e["type"] == "json_schema"]
XSD_ENTRIES = [e for e in MANIFEST if e["type"] == "xsd"]
# Namespaces xmlschema always serves from its own meta-schemas, whatever the corpus ships.
META_NAMESPACES = (
    "http://www.w3.org/XML/1998/namespace",
    "http://www.w3.org/2007/XMLSchema-versioning",
    "http://www.w3.org/2001/XMLSchema",
)
DRAFTS = ("draft-04", "draft-06", "draft-07", "2019-09", "2020-12")


def _ids(entries: list[dict[str, Any]]) -> list[str]:
    return [e["id"] for e in entries]


def test_manifest_shape_and_mix() -> None:
    assert len({e["id"] for e in MANIFEST}) == len(MANIFEST)
    assert len(JSON_ENTRIES) >= 150  # issue 18: at least 150 real JSON Schemas and 50 real XSDs
    assert len(XSD_ENTRIES) >= 50
    for draft in DRAFTS:
        assert sum(e["version"] == draft for e in JSON_ENTRIES) >= 3, draft
    assert sum(len(e["files"]) > 1 for e in XSD_ENTRIES) >= 3


@pytest.mark.parametrize("entry", MANIFEST, ids=_ids(MANIFEST))
def test_files_are_unmodified_copies(entry: dict[str, Any]) -> None:
    assert entry["files"][0] == entry["path"]
    for rel in entry["files"]:
        data = (CORPUS / rel).read_bytes()
        assert len(data) <= 3 * 1024 * 1024  # UBL 2.1 CommonAggregateComponents is 2.3 MiB
        assert hashlib.sha256(data).hexdigest() == entry["file_sha256"][rel]
    assert entry["sha256"] == entry["file_sha256"][entry["path"]]
    assert entry["license"] and entry["source_package"] and entry["source_version"]


@pytest.mark.parametrize("entry", JSON_ENTRIES, ids=_ids(JSON_ENTRIES))
def test_json_schema_version_and_metaschema(entry: dict[str, Any]) -> None:
    main = json.loads((CORPUS / entry["path"]).read_bytes())
    declared = main.get("$schema", "")
    found = [d for d in DRAFTS if d in declared]
    assert found == [entry["version"]] if declared else entry["version"] == "2020-12"
    for rel in entry["files"]:
        doc = json.loads((CORPUS / rel).read_bytes())
        validator_for(doc).check_schema(doc)


def _load_xsd(entry: dict[str, Any], defuse: str) -> xmlschema.XMLSchemaBase:
    cls = xmlschema.XMLSchema11 if entry["version"] == "1.1" else xmlschema.XMLSchema10
    # Remote schemaLocations are satisfied by the shipped copies; xmlschema's own bundled
    # fallbacks are disabled so the corpus files, not the library's, are what gets loaded.
    locations = [(ns, str((CORPUS / rel).resolve())) for ns, rel in entry.get("locations", {}).items()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xmlschema.XMLSchemaImportWarning)
        return cls(
            str(CORPUS / entry["path"]),
            allow="local",
            use_fallback=False,
            locations=locations or None,
            defuse=defuse,
        )


@pytest.mark.parametrize("entry", XSD_ENTRIES, ids=_ids(XSD_ENTRIES))
def test_xsd_loads_from_local_files_only(entry: dict[str, Any]) -> None:
    schema = _load_xsd(entry, defuse="remote")
    corpus_uri = CORPUS.resolve().as_uri()
    for namespace, schemas in schema.maps.namespaces.items():
        if namespace and not namespace.startswith(META_NAMESPACES):
            assert all(s.url and s.url.startswith(corpus_uri) for s in schemas), namespace


@pytest.mark.parametrize("entry", XSD_ENTRIES, ids=_ids(XSD_ENTRIES))
def test_xsd_dtd_flag_matches_strict_loading(entry: dict[str, Any]) -> None:
    if entry["has_dtd"]:
        # A blocked DTD shows up either directly or as the failed import's missing components.
        with pytest.raises((xmlschema.XMLResourceError, xmlschema.XMLSchemaParseError)):
            _load_xsd(entry, defuse="always")
    else:
        _load_xsd(entry, defuse="always")
