"""REST is a facade over GraphQL: every stored operation, run over POST /graphql with the
variables the facade would build, returns exactly the REST body (reads on the same data; mutations
in twin worlds, ids and timestamps aside); every route row is covered; every endpoint of the
interface specification is in the route table and in the OpenAPI document."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest

from app.core.validation import parse as validate_payload
from app.rest.operations import parse_operations
from app.rest.route import Route
from app.rest.routes import ROUTES
from tests.api.mutation_scenarios import SCENARIOS, Call, World, make_world
from tests.api_client import Actor, Api
from tests.paths import SPEC

_ROW = re.compile(r"^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*(/\S*)\s*\|")


def spec_endpoints() -> list[tuple[str, str]]:
    """(method, path) of every row of the specification's endpoint tables."""
    text = SPEC.read_text()
    section = text.split("## Endpoints", 1)[1].split("\n## ", 1)[0]
    return [(m.group(1), m.group(2)) for line in section.splitlines() if (m := _ROW.match(line.strip()))]


PERSON_SCHEMA = (
    '{"type": "object", "required": ["name", "age"], "properties": {'
    '"name": {"type": "string", "maxLength": 20}, "age": {"type": "integer", "minimum": 0, "maximum": 120}}}'
)
# GET rows whose stored operation is a query (GET /users/logout runs a mutation: not a read)
READS = [r for r in ROUTES if r.method == "GET" and r.operation is not None and r.operation.kind == "query"]
# every other operation row: mutations, and queries sent with a body (POST .../preview)
MUTATIONS = [r for r in ROUTES if r.operation is not None and r not in READS]
# the one row without a stored operation: the streaming door (tests/datasets/test_downloads.py)
DOORS = [r for r in ROUTES if r.operation is None]
CORE_PREFIXES = ("/users", "/projects", "/tenants", "/audit", "/settings")
CORE_READS = [r for r in READS if r.path.startswith(CORE_PREFIXES)]
OTHER_READS = [r for r in READS if not r.path.startswith(CORE_PREFIXES)]


async def _seed(api: Api) -> tuple[dict[str, Actor], dict[str, int]]:
    """A tenant with users, a shared project, an API token and audit rows; returns actors and ids."""
    tenant_id, admin = await api.create_tenant()
    manager = await api.create_user(admin, "Manager")
    tester = await api.create_user(admin, "Tester", display_name="Parity Tester")
    project = await api.create_project(manager, "Parity", tags=["p"])
    await api.create_project(admin, "Second")
    await api.add_member(manager, project["project_id"], tester.id, "edit")
    token = await api.call("POST", "/settings/tokens", tester, 201, json={"name": "parity"})
    assert api.root is not None
    actors = {"root": api.root, "admin": admin, "manager": manager, "tester": tester}
    ids = {"project_id": project["project_id"], "user_id": tester.id, "tenant_id": tenant_id,
           "token_id": token["token_id"]}
    return actors, ids


async def _seed_library(api: Api, actors: dict[str, Actor], ids: dict[str, int]) -> None:
    """A schema linked to the project, a constraint set on it and a deferred dataset."""
    manager, tester, pid = actors["manager"], actors["tester"], ids["project_id"]
    schema = await api.call("POST", "/schemas", manager, 201, json={
        "name": "person", "content": PERSON_SCHEMA, "project_id": pid})
    constraints = await api.call("POST", "/constraints", manager, 201, json={
        "name": "adults", "schema_id": schema["schema_id"], "rules": [{"path": "age", "min": 18, "max": 99}]})
    dataset = await api.call("POST", "/datasets/create", tester, 201, json={
        "name": "people", "project_id": pid, "schema_id": schema["schema_id"],
        "constraint_set_id": constraints["constraint_id"], "record_count": 3, "params": {"deferred": True}})
    ids.update(schema_id=schema["schema_id"], constraint_id=constraints["constraint_id"],
               dataset_id=dataset["dataset_id"])


async def _first_id(api: Api, actor: Actor, name: str) -> int | None:
    """For a path parameter this test does not seed, take an id from its collection's list route."""
    for route in ROUTES:
        if route.method == "GET" and route.paged and route.operation and not route.path_params:
            r = await api.request("GET", route.path, actor)
            if r.status_code == 200 and r.json() and name in r.json()[0]:
                return int(r.json()[0][name])
    return None


def _variables(route: Route, path_values: dict[str, int], query: dict[str, Any]) -> dict[str, Any]:
    variables: dict[str, Any] = dict(route.extra_variables)
    variables.update({n: path_values[n] for n in route.path_params})
    for param in route.query:
        variables[param.name] = query.get(param.name, param.default)
    return variables


async def _compare(api: Api, actor: Actor, route: Route, path_values: dict[str, int],
                   query: dict[str, Any]) -> bool:
    """Run the route over REST and its operation over GraphQL; True when data (not an error) was compared."""
    path = route.path
    for name in route.path_params:
        path = path.replace("{" + name + "}", str(path_values[name]))
    rest = await api.request("GET", path, actor, params=query)
    assert route.operation is not None
    gql = await api.graphql(route.operation.document, _variables(route, path_values, query), actor)
    where = f"{route.method} {route.path} as {actor.username} with {query}"
    if gql.get("errors"):
        error = gql["errors"][0]
        assert rest.status_code == error["extensions"]["status"], (where, rest.text, error)
        assert rest.json()["detail"] == error["message"], where
        return False
    assert rest.status_code == route.status, (where, rest.text)
    data = gql["data"][route.result]
    if route.paged:
        assert rest.json() == data["items"], where
        assert rest.headers["X-Total-Count"] == str(data["total"]), where
    else:
        assert rest.json() == data, where
    return True


async def _compare_all(api: Api, routes: list[Route], actors: dict[str, Actor], ids: dict[str, int]) -> set[str]:
    """Compare every route for every actor; returns "path role" for each pair compared as data."""
    compared: set[str] = set()
    for route in routes:
        for role, actor in actors.items():
            values = dict(ids)
            for name in route.path_params:
                if name not in values:
                    found = await _first_id(api, actor, name)
                    values[name] = found if found is not None else 1
            queries: list[dict[str, Any]] = [{}]
            if route.paged:
                queries.append({"limit": 1, "offset": 1})
            for query in queries:
                if await _compare(api, actor, route, values, query):
                    compared.add(f"{route.path} {role}")
    return compared


def _assert_data_compared(compared: set[str], paths: tuple[str, ...]) -> None:
    """The seeded resources were really compared as data, not only as matching errors."""
    for path in paths:
        assert f"{path} root" in compared or f"{path} admin" in compared, (path, sorted(compared))


async def test_core_read_routes_equal_their_graphql_operations(api: Api) -> None:
    actors, ids = await _seed(api)
    compared = await _compare_all(api, CORE_READS, actors, ids)
    _assert_data_compared(compared, ("/users/me", "/users", "/users/{user_id}", "/projects",
                                     "/projects/{project_id}", "/tenants", "/tenants/{tenant_id}", "/audit/logs",
                                     "/settings/tokens"))
    assert "/projects/{project_id} tester" in compared and "/users/me tester" in compared


async def test_library_read_routes_equal_their_graphql_operations(api: Api) -> None:
    actors, ids = await _seed(api)
    await _seed_library(api, actors, ids)
    compared = await _compare_all(api, OTHER_READS, actors, ids)
    _assert_data_compared(compared, ("/schemas", "/schemas/{schema_id}", "/schemas/{schema_id}/repr", "/constraints",
                                     "/constraints/{constraint_id}", "/datasets", "/datasets/{dataset_id}"))
    # the project detail now carries the linked schema and the dataset, identically in both styles
    compared = await _compare_all(api, [r for r in CORE_READS if r.path == "/projects/{project_id}"], actors, ids)
    assert "/projects/{project_id} tester" in compared
    detail = await api.call("GET", f"/projects/{ids['project_id']}", actors["tester"], 200)
    assert [s["schema_id"] for s in detail["schemas"]] == [ids["schema_id"]]
    assert [d["dataset_id"] for d in detail["datasets"]] == [ids["dataset_id"]]


async def test_every_spec_endpoint_is_routed_and_documented(client: httpx.AsyncClient) -> None:
    routed = {(r.method, r.path) for r in ROUTES}
    missing = [e for e in spec_endpoints() if e not in routed]
    assert not missing, f"specification endpoints without a route row: {missing}"
    assert len(routed) == len(ROUTES), "duplicate route rows"

    document = (await client.get("/api/v1/openapi.json")).json()
    documented = {(method.upper(), path) for path, ops in document["paths"].items() for method in ops}
    undocumented = [e for e in spec_endpoints() if e not in documented]
    assert not undocumented, f"specification endpoints missing from the OpenAPI document: {undocumented}"
    assert documented == routed, {"only routed": routed - documented, "only documented": documented - routed}


@pytest.mark.parametrize("route", [r for r in ROUTES if r.operation], ids=lambda r: f"{r.method} {r.path}")
def test_rows_return_their_operations_single_field(route: Route) -> None:
    """The body is the operation's one top-level field, named in its own document."""
    assert route.operation is not None and route.result == route.operation.field
    assert re.search(rf"\b{re.escape(route.operation.field)}\s*[({{]", route.operation.document), route.path


def test_a_stored_operation_that_does_not_match_the_schema_stops_the_start() -> None:
    from app.core.settings import Settings
    from app.graphql.schema import build_schema
    from app.rest.facade import build_router

    schema = build_schema(Settings(env="test", secret_key="parity-secret-" + "x" * 32))
    broken = Route("GET", "/users/me", "broken", "Test", parse_operations(["query Broken { me { no_such_field } }"])["Broken"])
    with pytest.raises(RuntimeError, match=r"GET /users/me: Cannot query field 'no_such_field'"):
        build_router((broken,), schema)
    assert build_router(tuple(r for r in ROUTES if r.path == "/users/me"), schema).routes



# values that differ between twin worlds by construction (ids, times, one-time secrets, unique names)
_TWIN_KEYS = {"id", "username", "email", "access_token", "token", "prefix", "invitation_token",
              "invitation_url", "signing_secret", "secret", "otpauth_uri", "admin_username", "avatar_url"}
# rows whose twins are compared as the same shaped error (see each scenario for why)
ERROR_ROWS = {("GET", "/datasets/generate/{dataset_id}"), ("POST", "/datasets/{dataset_id}/export-objectstore"),
              ("DELETE", "/notifications/{notification_id}"), ("POST", "/settings/disable_2fa"),
              ("POST", "/integrations/{integration_id}/test"),
              ("POST", "/integrations/{integration_id}/deliveries/{delivery_id}/redeliver")}


def _twin_free(value: Any, masked: frozenset[str]) -> Any:
    """The value with twin-specific leaves replaced by their type (null stays null)."""
    if isinstance(value, dict):
        return {k: (type(v).__name__ if v is not None and (k in _TWIN_KEYS or k in masked or k.endswith(
            ("_id", "_ids", "_at", "_by"))) else _twin_free(v, masked)) for k, v in value.items()}
    if isinstance(value, list):
        return [_twin_free(v, masked) for v in value]
    return value


def _mutation_variables(route: Route, call: Call) -> dict[str, Any]:
    """What the facade builds from the call: path values, and the body as checked by its model."""
    variables: dict[str, Any] = {**route.extra_variables, **call.path}
    if route.form is not None:
        variables.update(validate_payload(route.form, call.body or {}).model_dump(mode="json"))
    elif route.body is not None:
        checked = validate_payload(route.body, call.body or {}).model_dump(mode="json", exclude_unset=True)
        if route.body_variables:
            variables.update(checked)
        else:
            variables["input"] = checked
    return variables


async def _rest_mutation(api: Api, route: Route, call: Call) -> httpx.Response:
    path = route.path
    for name in route.path_params:
        path = path.replace("{" + name + "}", str(call.path[name]))
    if route.form is not None:
        return await api.request(route.method, path, call.actor, data=call.body)
    if route.body is not None:
        return await api.request(route.method, path, call.actor, json=call.body)
    return await api.request(route.method, path, call.actor)


async def _compare_mutation(route: Route, rest_world: World, gql_world: World) -> bool:
    """Run the row's scenario over REST in one world and over GraphQL in its twin; True if data was compared."""
    scenario = SCENARIOS[(route.method, route.path)]
    assert route.operation is not None
    rest_call, gql_call = await scenario(rest_world), await scenario(gql_world)
    rest = await _rest_mutation(rest_world.api, route, rest_call)
    gql = await gql_world.api.graphql(route.operation.document, _mutation_variables(route, gql_call), gql_call.actor)
    where = f"{route.method} {route.path}"
    if gql.get("errors"):
        error = gql["errors"][0]
        assert rest.status_code == error["extensions"]["status"], (where, rest.text, error)
        assert rest.json()["detail"] == error["message"], where
        return False
    assert rest.status_code == route.status, (where, rest.text)
    expected = _twin_free(gql["data"][route.operation.field], gql_call.masked)
    # serialized, so the order of the keys is compared too
    assert json.dumps(_twin_free(rest.json(), rest_call.masked)) == json.dumps(expected), where
    return True


async def test_mutation_routes_equal_their_graphql_operations(api: Api) -> None:
    rest_world, gql_world = await make_world(api), await make_world(api)
    compared = {(r.method, r.path) for r in MUTATIONS if await _compare_mutation(r, rest_world, gql_world)}
    assert compared == {(r.method, r.path) for r in MUTATIONS} - ERROR_ROWS


def test_every_route_row_is_covered_by_a_parity_test() -> None:
    rows = {(r.method, r.path) for r in ROUTES}
    covered = {(r.method, r.path) for r in READS} | set(SCENARIOS) | {(r.method, r.path) for r in DOORS}
    assert covered == rows, {"uncovered": rows - covered, "unknown": covered - rows}
    assert set(SCENARIOS) == {(r.method, r.path) for r in MUTATIONS}
    assert [r.path for r in DOORS if not r.download] == []


def test_path_parameters_are_checked_against_the_operation_when_the_table_loads() -> None:
    found = parse_operations(["query Detail($project_id: Int!) { project(project_id: $project_id) { name } }"])
    with pytest.raises(ValueError, match=r"path parameter 'projectid' not among the operation's variables"):
        Route("GET", "/projects/{projectid}", "typo", "Test", found["Detail"])
    with pytest.raises(ValueError, match=r"required variables project_id are not supplied"):
        Route("GET", "/projects", "no id", "Test", found["Detail"])
    assert Route("GET", "/projects/{project_id}", "ok", "Test", found["Detail"]).result == "project"


def test_an_operation_must_have_one_top_level_field() -> None:
    with pytest.raises(ValueError, match="exactly one top-level field"):
        parse_operations(["query Two { me { id } settings { theme } }"])
    with pytest.raises(ValueError, match="unknown fragment Nope"):
        parse_operations(["query Me { me { ...Nope } }"])
