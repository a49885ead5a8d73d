"""Every status a route answers is in the OpenAPI document (issue 16). Each row of the route table
is provoked with each class of bad request a client can send: no or a bad token, path ids that are
not integers, out of range or missing, query parameters empty, repeated, mistyped or out of range,
a missing, mistyped, malformed, oversized or unknown-keyed body, each body field null, mistyped,
a whole-number float, holding NUL or naming a missing row (as its usual caller and as the SuperUser),
the call made by the lowest role, and finally the valid call itself. Every answer must be one of
the operation's documented statuses, an error must carry a `detail` sentence, and nothing may be
a 5xx. A new row or a new refusal in a service cannot ship undocumented."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx

from app.rest.route import Route
from app.rest.routes import ROUTES
from tests.api.mutation_scenarios import MISSING, SCENARIOS, WEBHOOK, Call, World, make_world
from tests.api_client import Actor, Api

OVERSIZED = b'{"name": "' + b"x" * (16 * 1024 * 1024 + 1) + b'"}'


@dataclass
class Probe:
    label: str
    actor: Actor | None
    path: dict[str, str]
    kwargs: dict[str, Any] = field(default_factory=dict)
    query: str = ""
    headers: dict[str, str] = field(default_factory=dict)


def _url(route: Route, path: dict[str, str], query: str) -> str:
    url = route.path
    for name, value in path.items():
        url = url.replace("{" + name + "}", value)
    return url + (f"?{query}" if query else "")


def _resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        schema = document["components"]["schemas"][name]
    return schema


def _integer_fields(document: dict[str, Any], operation: dict[str, Any]) -> list[str]:
    body = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if body is None:
        return []
    props = _resolve(document, body["schema"]).get("properties", {})

    def is_int(p: dict[str, Any]) -> bool:
        return p.get("type") == "integer" or any(o.get("type") == "integer" for o in p.get("anyOf", []))

    return [name for name, p in props.items() if is_int(p)]


async def _read_ids(w: World) -> dict[str, int]:
    """Ids for the path parameters of the read rows: real rows where a test can make them."""
    api = w.api
    dataset = await api.call("POST", "/datasets/create", w.tester, 201, json={
        "name": "walk", "project_id": w.project_id, "schema_id": w.schema_id, "record_count": 3,
        "params": {"deferred": True}})
    integration = await api.call("POST", "/integrations", w.admin, 201, json=WEBHOOK)
    token = await api.call("POST", "/settings/tokens", w.admin, 201, json={"name": "walk"})
    return {"user_id": w.tester.id, "project_id": w.project_id, "schema_id": w.schema_id,
            "constraint_id": w.constraint_id, "tenant_id": w.tenant_id, "dataset_id": dataset["dataset_id"],
            "integration_id": integration["integration_id"], "token_id": token["token_id"],
            "notification_id": MISSING, "delivery_id": MISSING}


async def _valid_call(w: World, route: Route, ids: dict[str, int]) -> Call:
    scenario = SCENARIOS.get((route.method, route.path))
    if scenario is not None:
        return await scenario(w)
    return Call(w.admin, {name: ids[name] for name in route.path_params})


def _body_probes(route: Route, call: Call, ints: list[str], root: Actor) -> list[tuple[str, Actor | None, dict[str, Any]]]:
    """(label, actor, httpx kwargs) for a JSON body row."""
    body = dict(call.body or {})
    json_ct = {"Content-Type": "application/json"}
    probes: list[tuple[str, Actor | None, dict[str, Any]]] = [
        ("no body", call.actor, {}),
        ("empty JSON body", call.actor, {"content": b"", "headers": json_ct}),
        ("text/plain body", call.actor, {"content": b"{}", "headers": {"Content-Type": "text/plain"}}),
        ("malformed JSON", call.actor, {"content": b'{"a": ', "headers": json_ct}),
        ("JSON array", call.actor, {"json": [body]}),
        ("empty object", call.actor, {"json": {}}),
        ("unknown key", call.actor, {"json": {**body, "no_such_field": 1}}),
        ("oversized body", call.actor, {"content": OVERSIZED, "headers": json_ct}),
    ]
    assert route.body is not None
    for name in route.body.model_fields:
        value = body.get(name)
        probes += [
            (f"{name}=null", call.actor, {"json": {**body, name: None}}),
            (f"{name} mistyped", call.actor, {"json": {**body, name: 5 if isinstance(value, str) else "x"}}),
            (f"{name}=1.5", call.actor, {"json": {**body, name: 1.5}}),
            (f"{name} with NUL", call.actor, {"json": {**body, name: "a\u0000b"}}),
            (f"{name}=[]", call.actor, {"json": {**body, name: []}}),
        ]
    for name in ints:
        for actor in (call.actor, root):
            probes += [
                (f"{name} missing row", actor, {"json": {**body, name: MISSING}}),
                (f"{name}=168589.0", actor, {"json": {**body, name: 168589.0}}),
                (f"{name}=0", actor, {"json": {**body, name: 0}}),
                (f"{name}=2**31", actor, {"json": {**body, name: 2**31}}),
            ]
    return probes


def _form_probes(call: Call) -> list[tuple[str, Actor | None, dict[str, Any]]]:
    form = dict(call.body or {})
    return [
        ("no body", None, {}),
        ("JSON instead of a form", None, {"json": form}),
        ("empty username", None, {"data": {**form, "username": ""}}),
        ("missing password", None, {"data": {"username": form["username"]}}),
        ("unknown user", None, {"data": {"username": "nobody_here", "password": "wrong-password"}}),
        ("NUL in the username", None, {"data": {**form, "username": "a\u0000b"}}),
        ("oversized form", None, {"content": b"username=" + b"x" * (16 * 1024 * 1024 + 1),
                                   "headers": {"Content-Type": "application/x-www-form-urlencoded"}}),
    ]


def _multipart_probes(call: Call) -> list[tuple[str, Actor | None, dict[str, Any]]]:
    return [
        ("multipart without a file part", call.actor, {"files": {"other": ("x.txt", b"x")}}),
        ("multipart with a junk file", call.actor, {"files": {"file": ("junk.bin", b"\x00\x01junk")}}),
        ("multipart with an empty file", call.actor, {"files": {"file": ("empty.json", b"")}}),
    ]


def _probes(route: Route, call: Call, ints: list[str], w: World) -> list[Probe]:
    assert w.api.root is not None
    valid_path = {name: str(value) for name, value in call.path.items()}
    probes: list[Probe] = []
    if route.auth:
        probes.append(Probe("no token", None, valid_path, dict(_kwargs(route, call))))
        probes.append(Probe("bad token", None, valid_path, dict(_kwargs(route, call)),
                            headers={"Authorization": "Bearer nope"}))
    for name in route.path_params:
        for value in ("abc", "1.5", "0", "-3", str(2**31), str(MISSING)):
            probes.append(Probe(f"{name}={value}", call.actor, {**valid_path, name: value}, _kwargs(route, call)))
    for param in route.query:
        for query in (f"{param.name}=", f"{param.name}=1&{param.name}=2", f"{param.name}=abc",
                      f"{param.name}=1.5", f"{param.name}=-1", f"{param.name}=0", f"{param.name}={2**31}",
                      f"{param.name}=%00"):
            probes.append(Probe(query, call.actor, valid_path, _kwargs(route, call), query=query))
    if route.form is not None:
        probes += [Probe(label, a, valid_path, kw) for label, a, kw in _form_probes(call)]
    elif route.body is not None:
        probes += [Probe(label, a, valid_path, kw) for label, a, kw in _body_probes(route, call, ints, w.api.root)]
    if route.multipart:
        probes += [Probe(label, a, valid_path, kw) for label, a, kw in _multipart_probes(call)]
    if route.action is not None and call.actor is not w.tester:
        probes.append(Probe("as a Tester", w.tester, valid_path, _kwargs(route, call)))
    probes.append(Probe("the valid call", call.actor, valid_path, _kwargs(route, call)))
    return probes


def _kwargs(route: Route, call: Call) -> dict[str, Any]:
    if call.body is None:
        return {}
    return {"data": call.body} if route.form is not None else {"json": call.body}


def _check(route: Route, probe: Probe, r: httpx.Response, documented: dict[str, Any]) -> str | None:
    where = f"{route.method} {route.path} [{probe.label}] -> {r.status_code}"
    if r.status_code >= 500:
        return f"{where}: a server error: {r.text[:200]}"
    if str(r.status_code) not in documented:
        return f"{where} is not documented (documented: {', '.join(sorted(documented))}): {r.text[:160]}"
    if r.status_code >= 400:
        try:
            detail = r.json().get("detail")
        except ValueError:
            detail = None
        if not isinstance(detail, str) or not detail.strip():
            return f"{where}: no JSON detail sentence: {r.text[:160]}"
    return None


async def test_every_answer_of_every_route_is_documented(api: Api) -> None:
    document = (await api.client.get("/api/v1/openapi.json")).json()
    w = await make_world(api)
    ids = await _read_ids(w)
    problems: list[str] = []
    for route in ROUTES:
        operation = document["paths"][route.path][route.method.lower()]
        call = await _valid_call(w, route, ids)
        ints = _integer_fields(document, operation)
        for probe in _probes(route, call, ints, w):
            headers = {**(probe.actor.headers if probe.actor else {}), **probe.headers,
                       **probe.kwargs.get("headers", {})}
            kwargs = {k: v for k, v in probe.kwargs.items() if k != "headers"}
            r = await api.request(route.method, _url(route, probe.path, probe.query), None, headers=headers,
                                  **kwargs)
            problem = _check(route, probe, r, operation["responses"])
            if problem:
                problems.append(problem)
    assert not problems, f"{len(problems)} undocumented or unshaped answers:\n" + "\n".join(problems)
