"""Real-world schemas from the corpus: records in every format, every record checked by the
schema's own validator (jsonschema with the draft's format checker, or xmlschema)."""

from __future__ import annotations

import os

import pytest

from tests.generation.corpus import generate_entry, manifest

ENTRIES = {e["id"]: e for e in manifest()}
# schemas that generate today; a regression here is a bug (the full census is the slow test)
GENERATING = [
    "github-issue-config", "github-discussion", "codecov", "cloudbuild", "bamboo-spec", "taskfile",
    "compose-spec", "changie", "setuptools-pyproject", "nbformat-v4.5", "nbformat-v3", "openapi-3.0",
    "swagger-2.0", "poetry", "poetry-project",
    "vehicles", "wsdl11", "github-issue-forms", "output-2020-12", "metaschema-draft-07", "soap11-envelope",
    # generating since `not`, patternProperties keys for minProperties and enum filtering
    "openapi-3.1", "openapi-3.2", "sam-template", "github-action", "buildkite",
    # generating since oneOf options are told apart at compile time, array contains/if, xs:any left out
    "github-workflows", "readthedocs", "output-2019-09", "saml-authn-context", "saml-ac-x509",
    # kpart: xs:assert met by re-drawing; CycloneDX 1.2 XSD: cheap since the guard's identity fast path
    "kpart-model-xsd11", "cyclonedx-bom-1.2-xsd",
    # an xs:assert met only when two nillable elements are nil together: late re-draws nil them
    "manifest-2021-xsd11",
    # ~2,000 subschemas with their own $id, referenced by it: the registry crawled once at load
    "asyncapi-3.0.0", "asyncapi-3.1.0",
]


@pytest.mark.parametrize("entry_id", [i for i in GENERATING if i in ENTRIES])
def test_corpus_schema_generates_valid_records(entry_id: str) -> None:
    status, reason = generate_entry(ENTRIES[entry_id], records=30)
    if status == "rejected":  # the loader's call, not generation's
        pytest.skip(f"the loader rejects this schema: {reason}")
    assert status == "ok", reason


CENSUS_RECORDS = 200  # the bar: a few hundred records, every one validated, in every format


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("TDG_CORPUS_CENSUS"), reason="set TDG_CORPUS_CENSUS=1 (takes minutes)")
def test_corpus_census() -> None:
    """Share of loader-accepted corpus schemas that generate CENSUS_RECORDS valid records in every
    format; the others are listed with the reason generation gave."""
    results = {e["id"]: generate_entry(e, records=CENSUS_RECORDS) for e in manifest()}
    accepted = {k: v for k, v in results.items() if v[0] != "rejected"}
    ok = [k for k, v in accepted.items() if v[0] == "ok"]
    for k, (status, reason) in sorted(accepted.items()):
        if status != "ok":
            print(f"{k}: {(reason or '')[:300]}")
    print(f"{len(ok)}/{len(accepted)} accepted schemas generate {CENSUS_RECORDS} records in every format "
          f"({100 * len(ok) / max(1, len(accepted)):.0f}%); {len(results) - len(accepted)} rejected by the loader")
    assert set(GENERATING) & set(accepted) <= set(ok)
