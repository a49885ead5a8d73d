"""The OpenAPI document says exactly what the server enforces (issue 16): a value the document
allows is not refused at the door, and a value the door refuses is one the document does not
allow. Checked by sending, for every row, the same probe values to the server and to the
document's own schema (jsonschema): query parameters (ranges, enums, booleans, empty values),
JSON bodies (empty objects, nulls, NUL characters, blank strings, reserved-domain emails, the
schema upload's content), and the download door's media types."""

from __future__ import annotations

import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate as validate_openapi

from app.core.settings import Settings
from app.core.storage.files import COVERAGE, LABELS
from app.generation.xml_documents import ZIP_MEDIA_TYPE
from app.rest.route import Route
from app.rest.routes import ROUTES
from tests.api.mutation_scenarios import SCENARIOS, World, make_world
from tests.api.test_openapi_statuses import _read_ids
from tests.api_client import Actor, Api
from tests.datasets.flow import wait_for

MAX_ID = 2**31 - 1
# a query parameter whose valid values depend on stored data (the schema's record roots): the
# document cannot list them, so only the door's own refusals are compared for it
DATA_DEPENDENT = {("/schemas/{schema_id}/repr", "root")}
QUERY_PROBES = ("", "abc", "1.5", "168589.0", "-1", "0", "1", "2", "500", "501", str(MAX_ID), str(MAX_ID + 1),
                "true", "false", "True", "2026-01-02", "2026-01-02T03:04:05Z", "2026-01-02t03:04:05z",
                "2026-01-02T03:04:05.123456+01:00", "2026-02-30", "queued", "expired", "Tester",
                "json", "JSON", "ndjson", "a\u0000b")


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"dispatch_interval_seconds": 0.2})


def _validator(document: dict[str, Any], schema: dict[str, Any]) -> Draft202012Validator:
    """A validator for a schema of the document, its $refs resolved against the document."""
    return Draft202012Validator({**schema, "components": document["components"]},
                                format_checker=Draft202012Validator.FORMAT_CHECKER)


def _query_value_allowed(schema: dict[str, Any], raw: str) -> bool:
    """Whether the document allows `raw` as the query string value of a parameter with `schema`."""
    value: Any = raw
    if schema.get("type") == "integer":
        if not re.fullmatch(r"-?[0-9]+", raw):
            return False
        value = int(raw)
    elif schema.get("type") == "boolean":
        if raw not in ("true", "false"):
            return False
        value = raw == "true"
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER).is_valid(value)


def _url(route: Route, ids: dict[str, int]) -> str:
    path = route.path
    for name in route.path_params:
        path = path.replace("{" + name + "}", str(ids[name]))
    return path


async def test_the_document_is_valid_openapi_3_1(api: Api) -> None:
    document = (await api.client.get("/api/v1/openapi.json")).json()
    validate_openapi(document)
    for route in ROUTES:
        for param in document["paths"][route.path][route.method.lower()]["parameters"]:
            schema = param["schema"]
            if schema.get("type") == "integer":
                # the server refuses integers outside a range on every parameter: the range is documented
                assert "minimum" in schema and "maximum" in schema, (route.path, param)
            if param["name"] == "limit":
                assert (schema["minimum"], schema["maximum"]) == (1, 500), param
            if param["in"] == "path":
                assert (schema["type"], schema["minimum"], schema["maximum"]) == ("integer", 1, MAX_ID), param


async def test_query_parameters_agree_with_the_door(api: Api) -> None:
    document = (await api.client.get("/api/v1/openapi.json")).json()
    w = await make_world(api)
    ids = await _read_ids(w)
    assert api.root is not None
    problems: list[str] = []
    for route in ROUTES:
        if route.method != "GET":
            continue
        operation = document["paths"][route.path][route.method.lower()]
        for param in (p for p in operation["parameters"] if p["in"] == "query"):
            name = param["name"]
            for raw in QUERY_PROBES:
                allowed = _query_value_allowed(param["schema"], raw)
                r = await api.request("GET", _url(route, ids), api.root, params={name: raw})
                refused = r.status_code == 422 and name in r.json().get("detail", "")
                if (route.path, name) in DATA_DEPENDENT and allowed:
                    refused = refused and r.json()["detail"].startswith("Query parameter")
                if allowed == refused:
                    what = "allows" if allowed else "refuses"
                    problems.append(f"GET {route.path}?{name}={raw!r}: the document {what} it, the server "
                                    f"answered {r.status_code}: {r.text[:150]}")
    assert not problems, f"{len(problems)} disagreements:\n" + "\n".join(problems)


def _body_schema(document: dict[str, Any], route: Route) -> dict[str, Any]:
    operation = document["paths"][route.path][route.method.lower()]
    return dict(operation["requestBody"]["content"]["application/json"]["schema"])


def _properties(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    props: dict[str, Any] = schema.get("properties", {})
    return props


def _is_email(prop: dict[str, Any]) -> bool:
    return prop.get("format") == "email" or any(o.get("format") == "email" for o in prop.get("anyOf", []))


def _is_date_time(prop: dict[str, Any]) -> bool:
    return prop.get("format") == "date-time" or any(o.get("format") == "date-time" for o in prop.get("anyOf", []))


def _is_string(prop: dict[str, Any]) -> bool:
    return prop.get("type") == "string" or any(o.get("type") == "string" for o in prop.get("anyOf", []))


def _min_length(prop: dict[str, Any]) -> int:
    found = [prop.get("minLength", 0)] + [o.get("minLength", 0) for o in prop.get("anyOf", [])]
    return max(found)


def _body_probes(document: dict[str, Any], route: Route, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    probes: list[tuple[str, dict[str, Any]]] = [("{}", {})]
    for name, prop in _properties(document, _body_schema(document, route)).items():
        probes.append((f"{name}=null", {**body, name: None}))
        if _is_string(prop):
            probes.append((f"{name} with NUL", {**body, name: "a\u0000b"}))
            if _min_length(prop) >= 1 and not _is_email(prop):
                probes.append((f"{name} blank", {**body, name: " " * max(_min_length(prop), 3)}))
        if _is_date_time(prop):  # RFC 3339 (and so the document) allows a lowercase t and z
            probes.append((f"{name} with a lowercase t and z", {**body, name: "2099-01-02t03:04:05z"}))
        if _is_email(prop):
            for domain in ("example.local", "x.localhost", "x.invalid", "host.onion", "in-addr.arpa"):
                probes.append((f"{name} at .{domain}", {**body, name: f"someone@{domain}"}))
            probes.append((f"{name} at .test", {**body, name: "someone.else@example.test"}))
    # last: a valid call may change what the others need (a password, the account itself)
    return [*probes, ("the valid body", body)]


async def _json_body_calls(w: World) -> list[tuple[Route, Actor | None, str, dict[str, Any]]]:
    out = []
    for route in ROUTES:
        scenario = SCENARIOS.get((route.method, route.path))
        if route.body is None or scenario is None:
            continue
        call = await scenario(w)
        path = route.path
        for name, value in call.path.items():
            path = path.replace("{" + name + "}", str(value))
        out.append((route, call.actor, path, dict(call.body or {})))
    return out


async def test_json_bodies_agree_with_the_server(api: Api) -> None:
    document = (await api.client.get("/api/v1/openapi.json")).json()
    w = await make_world(api)
    problems: list[str] = []
    for route, actor, path, body in await _json_body_calls(w):
        validator = _validator(document, _body_schema(document, route))
        found: list[tuple[bool, str]] = []
        for label, probe in _body_probes(document, route, body):
            allowed = validator.is_valid(probe)
            r = await api.request(route.method, path, actor, json=probe)
            refused = r.status_code in (400, 422)
            if label == "the valid body":
                assert allowed, (route.path, probe)
                if refused:
                    # refused for what it means (an export naming a missing integration): the
                    # other probes can only show that what the document refuses, the server refuses
                    found = [(doc_allowed, text) for doc_allowed, text in found if not doc_allowed]
                    continue
            if allowed == refused:
                what = "allows" if allowed else "refuses"
                found.append((allowed, f"{route.method} {route.path} [{label}]: the document {what} it, the "
                                       f"server answered {r.status_code}: {r.text[:150]}"))
        problems += [text for _, text in found]
    assert not problems, f"{len(problems)} disagreements:\n" + "\n".join(problems)


async def test_update_bodies_and_the_schema_upload_say_what_they_need(api: Api) -> None:
    document = (await api.client.get("/api/v1/openapi.json")).json()
    for path, method in (("/settings", "put"), ("/projects/{project_id}", "put"), ("/users/{user_id}", "patch"),
                         ("/tenants/{tenant_id}", "put"), ("/constraints/{constraint_id}", "put"),
                         ("/integrations/{integration_id}", "put")):
        schema = document["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]
        name = schema["$ref"].rsplit("/", 1)[1]
        assert document["components"]["schemas"][name].get("minProperties") == 1, name
    upload = _validator(document, document["paths"]["/schemas"]["post"]["requestBody"]["content"]
                        ["application/json"]["schema"])
    assert not upload.is_valid({"name": "no content"})
    assert upload.is_valid({"content": "{}"}) and upload.is_valid({"content_base64": "e30="})
    assert not upload.is_valid({"content": "{}", "content_base64": "e30="})


FORMATS = {"json": "application/json", "ndjson": "application/x-ndjson", "csv": "text/csv",
           "xml": "application/xml", "sql": "application/sql"}


async def test_downloads_are_documented_per_media_type(api: Api) -> None:
    document = (await api.client.get("/api/v1/openapi.json")).json()
    operation = document["paths"]["/data/{dataset_id}"]["get"]
    content = operation["responses"]["200"]["content"]
    # xml's documents layout downloads as a zip of one document per record: the only binary body
    assert set(content) == {*FORMATS.values(), ZIP_MEDIA_TYPE}, content
    for media_type, spec in content.items():
        binary = spec["schema"].get("format") == "binary"
        assert binary == (media_type == ZIP_MEDIA_TYPE), (media_type, spec)
    assert content["application/json"]["schema"]["type"] == "array"
    format_param = next(p for p in operation["parameters"] if p["name"] == "format")
    # and the labels of a dataset with invalid records (NDJSON, the media type of ndjson), and the
    # coverage report of a coverage dataset (JSON)
    assert sorted(format_param["schema"]["enum"]) == sorted([*FORMATS, LABELS, COVERAGE])
    for status in ("206", "400", "416"):
        assert status in operation["responses"], status

    root = api.root
    assert root is not None
    project = await api.create_project(root, "Media types")
    w_schema = await api.call("POST", "/schemas", root, 201, json={
        "name": "person", "content": '{"type": "object", "properties": {"n": {"type": "integer"}}}'})
    dataset = await api.call("POST", "/datasets/create", root, 201, json={
        "name": "media", "project_id": project["project_id"], "schema_id": w_schema["schema_id"],
        "record_count": 5, "types": list(FORMATS)})
    assert (await wait_for(api, root, dataset["dataset_id"]))["status"] == "completed"
    for fmt, media_type in FORMATS.items():
        r = await api.request("GET", f"/data/{dataset['dataset_id']}", root, params={"format": fmt})
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].split(";")[0] == media_type, (fmt, r.headers["content-type"])
        schema = content[media_type]["schema"]
        value = r.json() if media_type == "application/json" else r.text
        Draft202012Validator(schema).validate(value)
    # Range errors are JSON sentences too, and documented
    url = f"/data/{dataset['dataset_id']}"
    for header, status in (("bytes=999999-", 416), ("bytes=abc", 400), ("lines=1-2", 400)):
        r = await api.request("GET", url, root, params={"format": "csv"}, headers={"Range": header})
        assert r.status_code == status, (header, r.status_code, r.text)
        assert r.json()["detail"].endswith("."), r.text
    r = await api.request("GET", url, root, params={"format": "csv"}, headers={"Range": "bytes=0-3"})
    assert r.status_code == 206 and r.headers["content-type"].split(";")[0] == "text/csv"
