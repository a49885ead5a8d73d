"""Generate again (the dataset page's button): a new dataset with the source's inputs, its seed
exact (a 63-bit seed is read as a string, `Dataset.seed`) and the rules it recorded rather than its
constraint set's later edits, so the files are byte for byte the same; the rights of dataset.create
apply, and a stranger gets 404."""

from __future__ import annotations

from typing import Any

from tests.api_client import Api
from tests.datasets.flow import ORDER_JSON, create_dataset, download, upload_schema, wait_for

AGAIN = """mutation($id: Int!, $name: String) {
  generate_again(dataset_id: $id, name: $name) { dataset_id name seed rules constraint_set_id record_count types params }
}"""
READ = "query($id: Int!) { dataset(dataset_id: $id) { seed rules params } }"
SEED = 2**62 + 12345  # beyond a JavaScript number's exact integers


async def test_generate_again_reproduces_the_files(api: Api) -> None:
    assert api.root is not None
    _, admin = await api.create_tenant()
    project = (await api.create_project(admin, "Again"))["project_id"]
    schema_id = (await upload_schema(api, admin, ORDER_JSON, "customer_order.schema.json"))["schema_id"]
    rules: list[dict[str, Any]] = [{"path": "status", "enum": ["pending"]}]
    made = await api.call("POST", "/constraints", admin, 201, json={"name": "pending", "schema_id": schema_id,
                                                                     "rules": rules})
    source = await create_dataset(api, admin, project, schema_id, 30, types=["csv"], name="orders",
                                  constraint_set_id=made["constraint_id"], params={"seed": SEED})
    read = (await api.gql_data(READ, {"id": source["dataset_id"]}, admin))["dataset"]
    assert read["seed"] == str(SEED)
    assert read["rules"] == rules
    assert (await wait_for(api, admin, source["dataset_id"]))["status"] == "completed"

    # the set edited afterwards: the second run still uses the rules the first recorded
    await api.call("PUT", f"/constraints/{made['constraint_id']}", admin, 200,
                   json={"rules": [{"path": "status", "enum": ["shipped"]}]})
    again = (await api.gql_data(AGAIN, {"id": source["dataset_id"]}, admin))["generate_again"]
    assert again["name"] == "orders (again)"
    assert again["seed"] == str(SEED)
    assert again["rules"] == rules
    assert again["constraint_set_id"] == made["constraint_id"]
    assert (again["record_count"], again["types"]) == (30, ["csv"])
    assert (await wait_for(api, admin, again["dataset_id"]))["status"] == "completed"
    first = await download(api, admin, source["dataset_id"], "csv")
    second = await download(api, admin, again["dataset_id"], "csv")
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    assert b"pending" in first.content and b"shipped" not in first.content

    named = (await api.gql_data(AGAIN, {"id": source["dataset_id"], "name": "rerun"}, admin))["generate_again"]
    assert named["name"] == "rerun"

    # a blank name is refused with a sentence; a user of another tenant cannot see the source
    blank = await api.graphql(AGAIN, {"id": source["dataset_id"], "name": " "}, admin)
    assert blank["errors"][0]["extensions"]["status"] == 422, blank
    _, stranger = await api.create_tenant()
    hidden = await api.graphql(AGAIN, {"id": source["dataset_id"]}, stranger)
    assert hidden["errors"][0]["extensions"]["status"] == 404, hidden


async def test_generate_again_checks_with_the_recorded_rules(api: Api) -> None:
    """A coverage dataset whose rule narrows an enum needs fewer records than the bare schema's set:
    generating it again is checked with the rules it recorded, so it is accepted as the source was."""
    _, admin = await api.create_tenant()
    project = (await api.create_project(admin, "Again"))["project_id"]
    schema_id = (await upload_schema(api, admin, ORDER_JSON, "customer_order.schema.json"))["schema_id"]
    made = await api.call("POST", "/constraints", admin, 201, json={
        "name": "two countries", "schema_id": schema_id,
        "rules": [{"path": "address.country", "enum": ["US", "DE"]}]})
    plan = f"/schemas/{schema_id}/coverage-plan"
    params = {"seed": 5}
    bare = await api.call("POST", plan, admin, 200, json={"mode": "each", "params": params})
    narrowed = await api.call("POST", plan, admin, 200, json={
        "mode": "each", "params": params, "constraint_set_id": made["constraint_id"]})
    assert narrowed["records"] < bare["records"], (narrowed["records"], bare["records"])
    source = await create_dataset(api, admin, project, schema_id, narrowed["records"], types=["json"],
                                  constraint_set_id=made["constraint_id"],
                                  params={**params, "coverage": "each"})
    again = await api.graphql(AGAIN, {"id": source["dataset_id"]}, admin)
    assert "errors" not in again, again
    assert again["data"]["generate_again"]["record_count"] == narrowed["records"]

