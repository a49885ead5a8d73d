"""params.coverage on datasets (issue 31 item 5): a dataset's first records are the coverage set,
then random valid records; a record_count below the set's size is 422 naming the size needed; the
preview starts with the set too. The records are scanned here for the schema's enum values."""

from __future__ import annotations

import json
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema

from app.core.settings import Settings
from tests.api_client import Api
from tests.datasets.flow import create_dataset, download, upload_schema, wait_for

ANGULAR = (Path(__file__).resolve().parents[1] / "corpus" / "json" / "angular-component.json").read_bytes()


async def test_coverage_dataset_and_preview(api: Api) -> None:
    _, admin = await api.create_tenant()
    project = (await api.create_project(admin, "Coverage"))["project_id"]
    schema_id = (await upload_schema(api, admin, ANGULAR, "angular-component.json"))["schema_id"]
    schema = json.loads(ANGULAR)

    small = await create_dataset(api, admin, project, schema_id, 2, 422, types=["json"],
                                 params={"seed": 5, "coverage": "each"})
    assert "coverage set" in small["detail"] and "at least 6 records" in small["detail"], small
    bad = await create_dataset(api, admin, project, schema_id, 20, 422, types=["json"],
                               params={"coverage": "all"})
    assert "params.coverage" in bad["detail"]

    made = await create_dataset(api, admin, project, schema_id, 20, types=["json"],
                                params={"seed": 5, "coverage": "each"})
    assert (await wait_for(api, admin, made["dataset_id"]))["status"] == "completed"
    records = (await download(api, admin, made["dataset_id"], "json")).json()
    assert len(records) == 20
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    assert all(validator.is_valid(r) for r in records)
    first = records[:6]
    for name in ("style", "viewEncapsulation", "changeDetection"):
        assert {r.get(name) for r in first} >= set(schema["properties"][name]["enum"]), name
    assert any("style" not in r for r in first)

    preview = await api.call("POST", f"/schemas/{schema_id}/preview", admin, 200,
                             json={"count": 6, "format": "json", "params": {"seed": 5, "coverage": "each"}})
    shown = json.loads(preview["content"]) if isinstance(preview.get("content"), str) else preview
    assert {r.get("style") for r in shown} >= set(schema["properties"]["style"]["enum"])


PLAN = """query($id: Int!, $mode: String, $params: JSON) {
  coverage_plan(schema_id: $id, mode: $mode, params: $params)
}"""


async def test_coverage_plan_before_creating(api: Api) -> None:
    _, admin = await api.create_tenant()
    schema_id = (await upload_schema(api, admin, ANGULAR, "angular-component.json"))["schema_id"]
    rest = await api.call("POST", f"/schemas/{schema_id}/coverage-plan", admin, 200,
                          json={"mode": "each", "params": {"seed": 5}})
    gql = (await api.gql_data(PLAN, {"id": schema_id, "mode": "each", "params": {"seed": 5}}, admin))
    assert gql["coverage_plan"] == rest
    assert rest["mode"] == "each" and rest["seed"] == "5"
    assert rest["records"] == 6 and rest["total"] == rest["covered"] == len(rest["targets"])
    styles = {t["value"] for t in rest["targets"] if t["pointer"] == "/style" and t["kind"] == "enum"}
    assert styles == {"css", "scss", "sass", "less", "none"}
    pairwise = await api.call("POST", f"/schemas/{schema_id}/coverage-plan", admin, 200,
                              json={"mode": "pairwise", "params": {"seed": 5}})
    assert pairwise["records"] > rest["records"]
    assert any(t["kind"] == "pair" for t in pairwise["targets"])
    bad = await api.call("POST", f"/schemas/{schema_id}/coverage-plan", admin, 422, json={"mode": "all"})
    assert "each or pairwise" in bad["detail"]
    _, stranger = await api.create_tenant()
    await api.call("POST", f"/schemas/{schema_id}/coverage-plan", stranger, 404, json={"mode": "each"})


_MISSING = object()


def _at(record: Any, pointer: str) -> Any:
    """The value at a JSON pointer of the record (_MISSING when a step is absent)."""
    node = record
    for step in pointer.split("/")[1:]:
        step = step.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and step in node:
            node = node[step]
        elif isinstance(node, list) and step.isdigit() and int(step) < len(node):
            node = node[int(step)]
        else:
            return _MISSING
    return node


def _meets(record: Any, target: dict[str, Any]) -> bool | None:
    """Whether the record meets the target, read off the record alone (None: a kind not read here)."""
    value = _at(record, target["pointer"])
    kind, want = target["kind"], target["value"]
    if kind == "presence":
        return (value is not _MISSING) == want
    if kind in ("enum", "boolean"):
        return value is not _MISSING and value == want and type(value) is type(want)
    if kind == "null":
        return value is not _MISSING and (value is None) == want
    if kind == "bound" and target.get("keyword") in ("minLength", "maxLength"):
        return isinstance(value, str) and len(value) == want
    if kind == "bound" and target.get("keyword") in ("minimum", "maximum"):
        return isinstance(value, int | float) and value == want
    return None


async def test_coverage_report_download_is_the_plan(api: Api) -> None:
    """GET /data/{id}?format=coverage is the report of the dataset's set: equal to the coverage
    plan of the same params, seed and record_count; each target it places is found in its record
    by reading the downloaded records; a dataset without params.coverage has no report (404)."""
    _, admin = await api.create_tenant()
    project = (await api.create_project(admin, "Coverage report"))["project_id"]
    schema_id = (await upload_schema(api, admin, ANGULAR, "angular-component.json"))["schema_id"]
    params = {"seed": 11, "coverage": "each"}
    made = await create_dataset(api, admin, project, schema_id, 25, types=["json", "csv"], params=params)
    assert (await wait_for(api, admin, made["dataset_id"]))["status"] == "completed"
    got = await download(api, admin, made["dataset_id"], "coverage")
    assert got.headers["content-type"].startswith("application/json")
    report = got.json()
    plan = await api.call("POST", f"/schemas/{schema_id}/coverage-plan", admin, 200,
                          json={"mode": "each", "params": {"seed": 11, "record_count": 25}})
    assert report == plan
    assert report["covered"] == report["total"] == len(report["targets"]) > 40

    records = (await download(api, admin, made["dataset_id"], "json")).json()
    validator = jsonschema.Draft7Validator(json.loads(ANGULAR), format_checker=jsonschema.FormatChecker())
    assert all(validator.is_valid(r) for r in records)
    read = 0
    for target in report["targets"]:
        assert target["record"] is not None and target["record"] < report["records"], target
        met = _meets(records[target["record"]], target)
        assert met is not False, target
        read += met is not None
        if met is not None:  # and in the set's records by a scan, not only where the report says
            assert any(_meets(r, target) for r in records[: report["records"]]), target
    assert read >= len(report["targets"]) - 2  # all but the two branch targets of /prefix

    plain = await create_dataset(api, admin, project, schema_id, 5, types=["json"], params={"seed": 1})
    assert (await wait_for(api, admin, plain["dataset_id"]))["status"] == "completed"
    missing = await api.call("GET", f"/data/{plain['dataset_id']}", admin, 404, params={"format": "coverage"})
    assert "made without params.coverage" in missing["detail"] and missing["code"] == "file_not_found"
    second = await api.call("GET", f"/data/{made['dataset_id']}", admin, 404,
                            params={"format": "coverage", "file_index": 1})
    assert "one coverage report" in second["detail"]


def _many_enums(fields: int, levels: int) -> bytes:
    props = {f"f{i:02d}": {"enum": [f"v{j}" for j in range(levels)]} for i in range(fields)}
    return json.dumps({"type": "object", "required": sorted(props), "properties": props}).encode()


async def test_coverage_set_past_its_deadline_is_422(api: Api, settings: Settings) -> None:
    """The set a request waits for is built in a probe process within settings.coverage_seconds:
    pairwise over 40 enum fields (22.5 s unbounded) is refused with coverage_too_large at creation,
    in the coverage plan and in the preview, answered soon after the deadline, never hung."""
    settings.coverage_seconds = 1.0
    _, admin = await api.create_tenant()
    project = (await api.create_project(admin, "Coverage bounds"))["project_id"]
    schema_id = (await upload_schema(api, admin, _many_enums(40, 4), "many-enums.json"))["schema_id"]
    began = time.monotonic()
    refused = await create_dataset(api, admin, project, schema_id, 100, 422, types=["json"],
                                   params={"seed": 2, "coverage": "pairwise"})
    assert time.monotonic() - began < 60
    assert refused["code"] == "coverage_too_large" and refused["field"] == "params.coverage", refused
    assert "within 1 s" in refused["detail"]
    plan = await api.call("POST", f"/schemas/{schema_id}/coverage-plan", admin, 422,
                          json={"mode": "pairwise", "params": {"seed": 2}})
    assert plan["code"] == "coverage_too_large"
    preview = await api.call("POST", f"/schemas/{schema_id}/preview", admin, 422,
                             json={"count": 20, "format": "json", "params": {"seed": 2, "coverage": "pairwise"}})
    assert preview["code"] == "coverage_too_large"
    # `each` of the same schema is four records, well within the deadline
    each = await api.call("POST", f"/schemas/{schema_id}/coverage-plan", admin, 200,
                          json={"mode": "each", "params": {"seed": 2}})
    assert each["records"] == 4 and each["covered"] == each["total"] == 40 * 4


async def test_preview_render_keeps_the_deadline(api: Api, settings: Settings, monkeypatch: Any) -> None:
    """The preview builds the set twice: bounded in the probe process, then again in an API
    thread to render it. The second build has the same deadline: with the probe's check taken
    away (so only the render builds it), pairwise over 40 enum fields (22.5 s unbounded) is still
    422 coverage_too_large soon after the 1 s deadline, not rendered after 20 s or more."""
    from app.core.datasets import preview as preview_module

    settings.coverage_seconds = 1.0
    _, admin = await api.create_tenant()
    schema_id = (await upload_schema(api, admin, _many_enums(40, 4), "many-enums.json"))["schema_id"]

    async def no_probe(*args: Any, **kwargs: Any) -> dict[str, Any]:
        return {}

    monkeypatch.setattr(preview_module.coverage, "coverage_of", no_probe)
    began = time.process_time()
    refused = await api.call("POST", f"/schemas/{schema_id}/preview", admin, 422,
                             json={"count": 20, "format": "json", "params": {"seed": 2, "coverage": "pairwise"}})
    assert refused["code"] == "coverage_too_large" and refused["field"] == "params.coverage", refused
    assert time.process_time() - began < 10  # CPU of this process (the render's thread): the deadline held
    # within the deadline the render is the set: `each` of the same schema, its 4 records first
    shown = await api.call("POST", f"/schemas/{schema_id}/preview", admin, 200,
                           json={"count": 4, "format": "json", "params": {"seed": 2, "coverage": "each"}})
    records = json.loads(shown["content"])
    for i in range(40):
        assert {r[f"f{i:02d}"] for r in records} == {f"v{j}" for j in range(4)}


async def test_negative_suite_dataset(api: Api) -> None:
    """params coverage each + invalid_rate 1: the dataset's first records are the negative suite,
    one invalid record per breakable constraint, each label checked with jsonschema against its
    record; a record_count below the suite is 422 naming its size; other rates stay refused; its
    format=coverage answers 404 pointing at the labels file (its report)."""
    _, admin = await api.create_tenant()
    project = (await api.create_project(admin, "Negative suite"))["project_id"]
    schema_id = (await upload_schema(api, admin, ANGULAR, "angular-component.json"))["schema_id"]
    params = {"seed": 8, "coverage": "each", "invalid_rate": 1}
    small = await create_dataset(api, admin, project, schema_id, 3, 422, types=["json"], params=params)
    assert "negative suite" in small["detail"] and small["field"] == "record_count", small
    half = await create_dataset(api, admin, project, schema_id, 50, 422, types=["json"],
                                params={**params, "invalid_rate": 0.5})
    assert "combine only as coverage each with invalid_rate 1" in half["detail"]

    made = await create_dataset(api, admin, project, schema_id, 40, types=["json"], params=params)
    assert (await wait_for(api, admin, made["dataset_id"]))["status"] == "completed"
    records = (await download(api, admin, made["dataset_id"], "json")).json()
    labels = [json.loads(line) for line in (await download(api, admin, made["dataset_id"], "labels")).content.splitlines()]
    assert len(records) == len(labels) == 40
    suite = len({(label["schema_pointer"], label["keyword"]) for label in labels})
    assert suite >= 10
    # the first `suite` records break each constraint once; the rest start over
    assert len({(label["schema_pointer"], label["keyword"]) for label in labels[:suite]}) == suite
    validator = jsonschema.Draft7Validator(json.loads(ANGULAR), format_checker=jsonschema.FormatChecker())
    for record, label in zip(records, labels, strict=True):
        places = {("/" + "/".join(map(str, e.absolute_schema_path)), e.validator) for e in validator.iter_errors(record)}
        assert (label["schema_pointer"], label["keyword"]) in places, (label, places)
    # its report is the labels file: format=coverage says so (404 naming format=labels)
    report = await api.call("GET", f"/data/{made['dataset_id']}", admin, 404, params={"format": "coverage"})
    assert report["code"] == "file_not_found" and report["field"] == "format", report
    assert "format=labels" in report["detail"] and "made without" not in report["detail"], report


async def test_negative_suite_dataset_of_an_xsd(api: Api) -> None:
    """The XSD negative suite as a dataset (ncml-2.2.xsd, written as xml): a record_count below it
    is 422 naming its size; at its size, one record per constraint, each judged by xmlschema to
    break exactly its label's constraint."""
    from tests.generation.test_negative_xsd import ENTRIES, check_labels, reference_schema

    _, admin = await api.create_tenant()
    project = (await api.create_project(admin, "XSD negative suite"))["project_id"]
    entry = ENTRIES["ncml-2.2"]
    xsd = (Path(__file__).resolve().parents[1] / "corpus" / entry["path"]).read_bytes()
    schema_id = (await upload_schema(api, admin, xsd, "ncml-2.2.xsd"))["schema_id"]
    params = {"seed": 8, "coverage": "each", "invalid_rate": 1}
    small = await create_dataset(api, admin, project, schema_id, 3, 422, types=["xml"], params=params)
    assert "negative suite" in small["detail"] and small["field"] == "record_count", small
    size = int(next(w for w in small["detail"].replace(",", "").split() if w.isdigit() and int(w) > 3))
    made = await create_dataset(api, admin, project, schema_id, size, types=["xml"], params=params)
    assert (await wait_for(api, admin, made["dataset_id"]))["status"] == "completed"
    records = list(ET.fromstring((await download(api, admin, made["dataset_id"], "xml")).content))
    labels = [json.loads(line) for line in (await download(api, admin, made["dataset_id"], "labels")).content.splitlines()]
    assert len(records) == len(labels) == size
    assert len({(label["schema_pointer"], label["keyword"]) for label in labels}) == size
    check_labels(reference_schema(entry), records, labels)
