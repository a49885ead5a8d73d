"""Who may start, cancel and delete a dataset (authz actions dataset.start, dataset.cancel,
dataset.delete): its creator (with edit on the project), the project's owners, and Managers and
up; others who see it get 403, those who cannot see it 404. Each role over REST and over GraphQL,
with `viewer_can` saying the same as the answers. The reproduction of issue 28: a Tester with
edit on a project deleted an Admin's dataset (200)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from tests.api_client import Actor, Api
from tests.datasets.flow import ORDER_JSON, create_dataset, upload_schema

DATASET = "dataset_id status viewer_can { start cancel delete }"
START = f"mutation($id: Int!) {{ start_dataset(dataset_id: $id) {{ {DATASET} }} }}"
DELETE = f"mutation($id: Int!) {{ delete_dataset(dataset_id: $id) {{ {DATASET} }} }}"
READ = f"query($id: Int!) {{ dataset(dataset_id: $id) {{ {DATASET} }} }}"


@dataclass
class World:
    project_id: int
    schema_id: int
    admin: Actor
    creator: Actor  # a Tester with edit who creates datasets of their own
    actors: dict[str, tuple[Actor, str]]  # name -> (actor, the dataset's author it acts on)
    authors: dict[str, Actor]


async def _world(api: Api) -> tuple[World, dict[str, int]]:
    """A project of an Admin with every kind of caller; returns it and what each may do to a
    dataset of the author it is paired with (200, 403 or 404)."""
    assert api.root is not None
    _, admin = await api.create_tenant()
    _, foreign_admin = await api.create_tenant()
    project = (await api.create_project(admin, "Owned data"))["project_id"]
    creator = await api.create_user(admin, "Tester")
    editor = await api.create_user(admin, "Tester")
    owner = await api.create_user(admin, "Tester")
    viewer_manager = await api.create_user(admin, "Manager")
    stranger_manager = await api.create_user(admin, "Manager")
    outsider = await api.create_user(admin, "Tester")
    for member, role in ((creator, "edit"), (editor, "edit"), (owner, "owner"), (viewer_manager, "view")):
        await api.add_member(admin, project, member.id, role)
    schema_id = (await upload_schema(api, admin, ORDER_JSON, "customer_order.schema.json"))["schema_id"]
    actors = {
        "tester creator, own dataset": (creator, "creator"),
        "tester creator, the admin's dataset": (creator, "admin"),
        "tester with edit, the admin's dataset": (editor, "admin"),
        "tester with edit, another tester's dataset": (editor, "creator"),
        "project owner (tester)": (owner, "admin"),
        "manager with view": (viewer_manager, "creator"),
        "admin": (admin, "creator"),
        "superuser": (api.root, "creator"),
        "manager who cannot see the project": (stranger_manager, "admin"),
        "tester outside the project": (outsider, "creator"),
        "admin of another tenant": (foreign_admin, "creator"),
    }
    expected = {
        "tester creator, own dataset": 200,
        "tester creator, the admin's dataset": 403,
        "tester with edit, the admin's dataset": 403,
        "tester with edit, another tester's dataset": 403,
        "project owner (tester)": 200,
        "manager with view": 200,
        "admin": 200,
        "superuser": 200,
        "manager who cannot see the project": 404,
        "tester outside the project": 404,
        "admin of another tenant": 404,
    }
    world = World(project, schema_id, admin, creator, actors, {"admin": admin, "creator": creator})
    return world, expected


async def _dataset(api: Api, world: World, author: str, *, finished: bool) -> int:
    """A queued dataset that does not start by itself (deferred), or a finished (cancelled) one."""
    by = world.authors[author]
    made = await create_dataset(api, by, world.project_id, world.schema_id, 5, params={"deferred": True})
    if finished:
        assert (await api.call("DELETE", f"/datasets/{made['dataset_id']}", by, 200))["status"] == "cancelled"
    return int(made["dataset_id"])


def _gql_status(body: dict[str, Any]) -> int:
    errors = body.get("errors") or []
    return int(errors[0]["extensions"]["status"]) if errors else 200


async def _rest(api: Api, actor: Actor, action: str, dataset_id: int) -> tuple[int, dict[str, Any]]:
    if action == "start":
        r = await api.request("GET", f"/datasets/generate/{dataset_id}", actor)
    else:
        r = await api.request("DELETE", f"/datasets/{dataset_id}", actor)
    return r.status_code, r.json()


async def _graphql(api: Api, actor: Actor, action: str, dataset_id: int) -> tuple[int, dict[str, Any]]:
    body = await api.graphql(START if action == "start" else DELETE, {"id": dataset_id}, actor)
    data = (body.get("data") or {}).get("start_dataset" if action == "start" else "delete_dataset")
    return _gql_status(body), data or body


async def _viewer_can(api: Api, actor: Actor, dataset_id: int) -> dict[str, bool] | None:
    """What the dataset says the caller may do, over REST and GraphQL alike (None: not visible)."""
    rest = await api.request("GET", f"/datasets/{dataset_id}", actor)
    body = await api.graphql(READ, {"id": dataset_id}, actor)
    if rest.status_code == 404:
        assert _gql_status(body) == 404, body
        return None
    assert rest.status_code == 200, rest.text
    assert body["data"]["dataset"]["viewer_can"] == rest.json()["viewer_can"], (body, rest.text)
    return dict(rest.json()["viewer_can"])


@pytest.mark.parametrize("transport", ["rest", "graphql"])
async def test_start_cancel_delete_per_role(api: Api, transport: str) -> None:
    world, expected = await _world(api)
    act = _rest if transport == "rest" else _graphql
    for name, (actor, author) in world.actors.items():
        want = expected[name]
        # start a deferred one, cancel a queued one, delete a finished one: each a dataset of its own
        for action, finished, status_after in (("start", False, "queued"), ("cancel", False, "cancelled"),
                                               ("delete", True, "cancelled")):
            dataset_id = await _dataset(api, world, author, finished=finished)
            rights = await _viewer_can(api, actor, dataset_id)
            if want == 404:
                assert rights is None, name
            else:
                assert rights == {"start": want == 200, "cancel": want == 200, "delete": want == 200}, (name, rights)
            status, body = await act(api, actor, action, dataset_id)
            assert status == want, (name, action, status, body)
            after = await api.request("GET", f"/datasets/{dataset_id}", world.admin)
            if want == 200 and action == "delete":
                assert after.status_code == 404, (name, after.text)
                continue
            assert after.status_code == 200, (name, after.text)
            if want == 200:
                assert body["dataset_id"] == dataset_id and body["status"] == status_after, (name, body)
            else:
                # refused: nothing changed (a refused start leaves it waiting, not startable)
                assert after.json()["status"] == ("cancelled" if finished else "queued"), (name, after.text)
                if want == 403:
                    detail = body["detail"] if transport == "rest" else body["errors"][0]["message"]
                    assert "Only its creator, the project's owners and Managers and up" in detail, (name, detail)


async def test_the_reproduction_a_tester_with_edit_cannot_delete_an_admins_dataset(api: Api) -> None:
    world, _ = await _world(api)
    editor = world.actors["tester with edit, the admin's dataset"][0]
    dataset_id = await _dataset(api, world, "admin", finished=True)
    refused = await api.call("DELETE", f"/datasets/{dataset_id}", editor, 403)
    assert refused["detail"] == ("Only its creator, the project's owners and Managers and up may delete this "
                                 "dataset; your role is Tester with project role 'edit'.")
    await api.call("GET", f"/datasets/{dataset_id}", world.admin, 200)
    # the list shows the same: the Admin's dataset offers the editor nothing, their own everything
    own = await _dataset(api, world, "creator", finished=False)
    listed = await api.call("GET", "/datasets", world.creator, 200, params={"project_id": world.project_id})
    rights = {d["dataset_id"]: d["viewer_can"] for d in listed}
    assert rights[dataset_id] == {"start": False, "cancel": False, "delete": False}
    assert rights[own] == {"start": True, "cancel": True, "delete": True}
