"""Scoped API tokens (issue 28): a token limited to some projects and some actions (read, upload,
generate, download) is held to them over REST, GraphQL, the download door and its links, and the
upload door; it never exceeds its owner (the intersection); a token without a scope keeps its
owner's full power; the token list shows each scope; a scope naming an unknown action or a project
its owner cannot see is refused with 422 and a sentence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.api_client import Actor, Api
from tests.datasets.flow import ORDER_JSON, create_dataset, download, upload_schema, wait_for

LINK = """mutation($id: Int!) {
  create_download_link(dataset_id: $id, format: "csv", file_index: 0) { url }
}"""
CREATE = """mutation($input: DatasetCreateInput!) { create_dataset(input: $input) { dataset_id } }"""
PROJECT = "query($id: Int!) { project(project_id: $id) { project_id name } }"
TOKENS = "{ api_tokens { token_id name project_ids actions } }"
MAKE_TOKEN = """mutation($input: ApiTokenCreateInput!) {
  create_api_token(input: $input) { token_id project_ids actions token }
}"""


@dataclass
class World:
    admin: Actor
    owner: Actor  # a Manager owning projects A and B
    project_a: int
    project_b: int
    schema_id: int
    dataset_a: int  # completed
    dataset_b: int  # completed


def as_token(owner: Actor, secret: str) -> Actor:
    return Actor(owner.id, owner.username, owner.password, secret, owner.tenant_id)


def gql_status(body: dict[str, Any]) -> int:
    errors = body.get("errors") or []
    return int(errors[0]["extensions"]["status"]) if errors else 200


async def _world(api: Api) -> World:
    _, admin = await api.create_tenant()
    owner = await api.create_user(admin, "Manager")
    project_a = (await api.create_project(owner, "Project A"))["project_id"]
    project_b = (await api.create_project(owner, "Project B"))["project_id"]
    schema_id = (await upload_schema(api, owner, ORDER_JSON, "customer_order.schema.json"))["schema_id"]
    made = [await create_dataset(api, owner, p, schema_id, 50, types=["csv"], params={"seed": 5})
            for p in (project_a, project_b)]
    for dataset in made:
        assert (await wait_for(api, owner, dataset["dataset_id"]))["status"] == "completed"
    return World(admin, owner, project_a, project_b, schema_id, made[0]["dataset_id"], made[1]["dataset_id"])


async def _token(api: Api, owner: Actor, status: int = 201, **scope: Any) -> dict[str, Any]:
    return await api.call("POST", "/settings/tokens", owner, status, json={"name": "ci", **scope})


async def test_a_token_for_project_a_that_reads_and_downloads(api: Api) -> None:
    w = await _world(api)
    made = await _token(api, w.owner, project_ids=[w.project_a], actions=["download", "read"])
    assert made["project_ids"] == [w.project_a] and made["actions"] == ["read", "download"]
    token = as_token(w.owner, made["token"])
    body = {"name": "nope", "project_id": w.project_a, "schema_id": w.schema_id, "record_count": 5}

    # cannot create a dataset, even in its own project: 403 over REST and GraphQL
    refused = await api.call("POST", "/datasets/create", token, 403, json=body)
    assert refused["detail"] == ("This API token's scope allows read, download; it may not create datasets "
                                 "in this project.")
    assert gql_status(await api.graphql(CREATE, {"input": body}, token)) == 403
    # nor start, cancel or delete one; each dataset says so
    await api.call("DELETE", f"/datasets/{w.dataset_a}", token, 403)
    detail = await api.call("GET", f"/datasets/{w.dataset_a}", token, 200)
    assert detail["viewer_can"] == {"start": False, "cancel": False, "delete": False}
    owners = await api.call("GET", f"/datasets/{w.dataset_a}", w.owner, 200)
    assert owners["viewer_can"] == {"start": True, "cancel": True, "delete": True}

    # project B does not exist for it: 404 over REST and GraphQL, and absent from every list
    await api.call("GET", f"/projects/{w.project_b}", token, 404)
    assert gql_status(await api.graphql(PROJECT, {"id": w.project_b}, token)) == 404
    await api.call("GET", f"/datasets/{w.dataset_b}", token, 404)
    await api.call("GET", "/datasets", token, 404, params={"project_id": w.project_b})
    assert [p["project_id"] for p in await api.call("GET", "/projects", token, 200)] == [w.project_a]
    assert {d["dataset_id"] for d in await api.call("GET", "/datasets", token, 200)} == {w.dataset_a}
    assert (await api.gql_data(PROJECT, {"id": w.project_a}, token))["project"]["project_id"] == w.project_a

    # downloads: project A's file, not B's (door and links)
    ok = await download(api, token, w.dataset_a, "csv")
    assert ok.status_code == 200 and ok.content == (await download(api, w.owner, w.dataset_a, "csv")).content
    assert (await download(api, token, w.dataset_b, "csv")).status_code == 404
    url = (await api.gql_data(LINK, {"id": w.dataset_a}, token))["create_download_link"]["url"]
    assert (await api.client.get(url)).status_code == 200
    assert gql_status(await api.graphql(LINK, {"id": w.dataset_b}, token)) == 404

    # no upload in its scope: the upload door refuses before taking the file
    r = await api.request("POST", "/schemas", token, files={"file": ("s.schema.json", ORDER_JSON)})
    assert r.status_code == 403, r.text
    # nor any management, nor its owner's account (it would make itself a bigger token)
    await api.call("PUT", f"/projects/{w.project_a}", token, 403, json={"name": "Renamed"})
    await api.call("POST", "/settings/tokens", token, 403, json={"name": "bigger"})
    await api.call("PUT", "/settings", token, 403, json={"display_name": "Mallory"})
    await api.call("GET", "/users", token, 403)

    # revoked, its links stop too
    await api.call("DELETE", f"/settings/tokens/{made['token_id']}", w.owner, 200)
    assert (await api.client.get(url)).status_code == 401
    await api.call("GET", f"/projects/{w.project_a}", token, 401)


async def test_each_action_alone(api: Api) -> None:
    w = await _world(api)
    body = {"name": "ci", "project_id": w.project_a, "schema_id": w.schema_id, "record_count": 5,
            "params": {"deferred": True}}
    generate = as_token(w.owner, (await _token(api, w.owner, actions=["generate"]))["token"])
    created = await api.call("POST", "/datasets/create", generate, 201, json=body)
    # no `read`: no query at all, over REST or GraphQL
    refused = await api.call("GET", f"/datasets/{created['dataset_id']}", generate, 403)
    assert refused["detail"] == "This API token's scope allows generate; it may not read anything."
    assert gql_status(await api.graphql("{ projects { total } }", None, generate)) == 403
    assert (await download(api, generate, w.dataset_a, "csv")).status_code == 403
    await api.call("DELETE", f"/datasets/{created['dataset_id']}", generate, 200)

    upload = as_token(w.owner, (await _token(api, w.owner, project_ids=[w.project_b], actions=["upload"]))["token"])
    await upload_schema(api, upload, ORDER_JSON, "again.schema.json")
    await api.call("POST", "/datasets/create", upload, 403, json=body)
    # only projects given: the four actions, in those projects
    projects_only = await _token(api, w.owner, project_ids=[w.project_b, w.project_b])
    assert projects_only["project_ids"] == [w.project_b]
    assert projects_only["actions"] == ["read", "upload", "generate", "download"]
    in_b = as_token(w.owner, projects_only["token"])
    await api.call("POST", "/datasets/create", in_b, 201, json={**body, "project_id": w.project_b})
    await api.call("POST", "/datasets/create", in_b, 404, json=body)
    assert (await download(api, in_b, w.dataset_b, "csv")).status_code == 200


async def test_an_unscoped_token_keeps_its_owners_power_and_the_list_shows_scopes(api: Api) -> None:
    w = await _world(api)
    full = await _token(api, w.owner)
    assert full["project_ids"] is None and full["actions"] is None
    token = as_token(w.owner, full["token"])
    for project_id in (w.project_a, w.project_b):
        await api.call("POST", "/datasets/create", token, 201, json={
            "name": "ci", "project_id": project_id, "schema_id": w.schema_id, "record_count": 5})
    await api.call("PUT", f"/projects/{w.project_b}", token, 200, json={"name": "Renamed"})
    assert (await download(api, token, w.dataset_b, "csv")).status_code == 200
    # through GraphQL too, and the list shows each token's scope
    made = await api.gql_data(MAKE_TOKEN, {"input": {"name": "gql", "project_ids": [w.project_a],
                                                     "actions": ["read"]}}, w.owner)
    assert made["create_api_token"]["project_ids"] == [w.project_a]
    assert made["create_api_token"]["actions"] == ["read"]
    listed = {t["token_id"]: t for t in await api.call("GET", "/settings/tokens", w.owner, 200)}
    assert (listed[full["token_id"]]["project_ids"], listed[full["token_id"]]["actions"]) == (None, None)
    scoped = listed[made["create_api_token"]["token_id"]]
    assert (scoped["project_ids"], scoped["actions"]) == ([w.project_a], ["read"])
    rows = (await api.gql_data(TOKENS, None, w.owner))["api_tokens"]
    assert {(t["token_id"], tuple(t["actions"] or ())) for t in rows} == {
        (full["token_id"], ()), (scoped["token_id"], ("read",))}


async def test_invalid_scopes_are_422_with_a_sentence(api: Api) -> None:
    w = await _world(api)
    _, stranger_admin = await api.create_tenant()
    elsewhere = (await api.create_project(stranger_admin, "Not theirs"))["project_id"]
    err = await _token(api, w.owner, 422, actions=["read", "delete"])
    assert "actions" in err["detail"], err
    err = await _token(api, w.owner, 422, project_ids=[w.project_a, elsewhere])
    assert err["detail"] == (f"project_ids: project {elsewhere} is not one you can see; a token's scope can only "
                             "name your projects.")
    await _token(api, w.owner, 422, actions=[])
    await _token(api, w.owner, 422, project_ids=[])
    body = await api.graphql(MAKE_TOKEN, {"input": {"name": "x", "project_ids": [elsewhere]}}, w.owner)
    assert gql_status(body) == 422 and f"project {elsewhere} is not one you can see" in body["errors"][0]["message"]
    body = await api.graphql(MAKE_TOKEN, {"input": {"name": "x", "actions": ["write"]}}, w.owner)
    assert body.get("errors") and body.get("data") is None, body
    assert await api.call("GET", "/settings/tokens", w.owner, 200) == []


async def test_a_scope_never_exceeds_its_owner(api: Api) -> None:
    """The intersection: a token scoped to a project where its owner may only view cannot create
    datasets there, and loses the project with its owner."""
    w = await _world(api)
    viewer = await api.create_user(w.admin, "Tester")
    await api.add_member(w.owner, w.project_a, viewer.id, "view")
    made = await _token(api, viewer, project_ids=[w.project_a], actions=["read", "generate", "download"])
    token = as_token(viewer, made["token"])
    await api.call("POST", "/datasets/create", token, 403, json={
        "name": "ci", "project_id": w.project_a, "schema_id": w.schema_id, "record_count": 5})
    await api.call("GET", f"/projects/{w.project_a}", token, 200)
    await api.call("POST", f"/projects/{w.project_a}/remove-user", w.owner, 200, json={"user_id": viewer.id})
    await api.call("GET", f"/projects/{w.project_a}", token, 404)
    assert (await download(api, token, w.dataset_a, "csv")).status_code == 404
