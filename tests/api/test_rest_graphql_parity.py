"""REST is a facade over GraphQL: every stored read operation, run over POST /graphql with the
variables the facade would build, returns exactly the REST body; every
endpoint of the interface specification is in the route table and in the OpenAPI document."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from app.rest.route import Route
from app.rest.routes import ROUTES
from tests.api_client import Actor, Api
from tests.paths import SPEC

_ROW = re.compile(r"^\|\s*(GET|POST|PUT|PATCH|DELETE)\s*\|\s*(/\S*)\s*\|")


def spec_endpoints() -> list[tuple[str, str]]:
    """(method, path) of every row of the specification's endpoint tables."""
    text = SPEC.read_text()
    section = text.split("## Endpoints", 1)[1].split("\n## ", 1)[0]
    return [(m.group(1), m.group(2)) for line in section.splitlines() if (m := _ROW.match(line.strip()))]


# GET rows whose stored operation is a query (GET /users/logout runs a mutation: not a read)
PERSON_SCHEMA = (
    '{"type": "object", "required": ["name", "age"], "properties": {'
    '"name": {"type": "string", "maxLength": 20}, "age": {"type": "integer", "minimum": 0, "maximum": 120}}}'
)
READS = [r for r in ROUTES if r.method == "GET" and r.operation is not None
         and not r.operation.lstrip().startswith("mutation")]
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
    gql = await api.graphql(route.operation or "", _variables(route, path_values, query), actor)
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


@pytest.mark.parametrize("route", READS, ids=lambda r: f"{r.method} {r.path}")
def test_read_routes_select_what_they_return(route: Route) -> None:
    """A read row names its result field inside its own operation (else the facade answers None)."""
    assert route.result and re.search(rf"\b{re.escape(route.result)}\s*[({{]", route.operation or ""), route.path


def test_a_stored_operation_that_does_not_match_the_schema_stops_the_start() -> None:
    from app.core.settings import Settings
    from app.graphql.schema import build_schema
    from app.rest.facade import build_router

    schema = build_schema(Settings(env="test", secret_key="parity-secret-" + "x" * 32))
    broken = Route("GET", "/users/me", "broken", "Test", "query { me { no_such_field } }", "me")
    with pytest.raises(RuntimeError, match=r"GET /users/me: Cannot query field 'no_such_field'"):
        build_router((broken,), schema)
    assert build_router(tuple(r for r in ROUTES if r.path == "/users/me"), schema).routes

