"""GET /datasets/{id} and `dataset(dataset_id)` read the row and its files through one statement
kept per caller (app/core/repositories/base.py, `per_caller`): each caller still sees exactly the
datasets of the projects visible to them now, whoever asked before them with the same role, and a
membership granted or removed counts on the very next request."""

from __future__ import annotations

from tests.api_client import Actor, Api
from tests.datasets.flow import ORDER_JSON, create_dataset, upload_schema

QUERY = "query($id: Int!) { dataset(dataset_id: $id) { dataset_id files { format } } }"


async def _status(api: Api, actor: Actor, dataset_id: int) -> tuple[int, int | None]:
    """The REST status and the GraphQL answer's extensions status (None when it answered the row)."""
    rest = await api.request("GET", f"/datasets/{dataset_id}", actor)
    body = (await api.graphql_raw(QUERY, {"id": dataset_id}, actor)).json()
    errors = body.get("errors") or []
    if not errors:
        assert body["data"]["dataset"] == {"dataset_id": dataset_id, "files": []}, body
        assert rest.json()["dataset_id"] == dataset_id and rest.json()["files"] == [], rest.text
    return rest.status_code, errors[0]["extensions"]["status"] if errors else None


async def test_each_caller_sees_their_own_visible_datasets(api: Api) -> None:
    _, admin = await api.create_tenant()
    manager = await api.create_user(admin, "Manager")
    member, outsider = await api.create_user(admin, "Tester"), await api.create_user(admin, "Tester")
    _, foreign_admin = await api.create_tenant()
    project = await api.create_project(manager, "Visible to some")
    schema = await upload_schema(api, manager, ORDER_JSON, "customer_order.schema.json")
    dataset_id = (await create_dataset(api, manager, project["project_id"], schema["schema_id"], 10,
                                       params={"deferred": True}))["dataset_id"]

    assert await _status(api, member, dataset_id) == (404, 404)  # a Tester's statement, before membership
    await api.add_member(manager, project["project_id"], member.id)
    assert await _status(api, member, dataset_id) == (200, None)
    # same role and tenant as the member, asked right after: not a member, so not visible
    assert await _status(api, outsider, dataset_id) == (404, 404)
    for caller in (manager, admin, api.root):
        assert caller is not None
        assert await _status(api, caller, dataset_id) == (200, None)
    assert await _status(api, foreign_admin, dataset_id) == (404, 404)
    await api.call("POST", f"/projects/{project['project_id']}/remove-user", manager, 200,
                   json={"user_id": member.id})
    assert await _status(api, member, dataset_id) == (404, 404)
