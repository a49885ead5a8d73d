"""A dataset's start, cancel and delete are offered only to those who may take them (its creator,
the project's owners, Managers and up: `Dataset.viewer_can`); a Tester with edit sees them on their
own dataset and not on an Admin's, and the server refuses a forged one."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.paths import BENCH
from tests.web.browser.helpers import Rest, heading, open_app, unique, visit_check
from tests.web.browser.test_roles import forge, refused

SCHEMA = BENCH / "customer_order.schema.json"


def test_dataset_actions_only_where_allowed(page: Page, rest: Rest) -> None:
    admin = rest.create_user("Admin")
    editor = rest.create_user("Tester")
    project = rest.create_project(unique("Owned data"), by=admin)
    rest.add_member(project["project_id"], editor.id, "edit", by=admin)
    schema = rest.upload_schema(SCHEMA, by=admin)
    rest.link_schema(project["project_id"], schema["schema_id"], by=admin)
    # deferred: both stay queued, so Start and Cancel would both apply
    theirs = rest.create_dataset(project["project_id"], schema["schema_id"], 5, ["json"], by=admin,
                                 params={"deferred": True})
    mine = rest.create_dataset(project["project_id"], schema["schema_id"], 5, ["json"], by=editor,
                               params={"deferred": True})

    open_app(page, f"/projects/{project['project_id']}", editor.username, editor.password)
    heading(page, project["name"])
    table = page.get_by_role("table", name="Datasets")
    expect(table.get_by_role("row", name=mine["name"])).to_be_visible()
    expect(table.get_by_role("button", name=f"Start dataset {mine['name']}")).to_be_visible()
    expect(table.get_by_role("button", name=f"Cancel dataset {mine['name']}")).to_be_visible()
    expect(table.get_by_role("row", name=theirs["name"])).to_be_visible()
    expect(table.get_by_role("button", name=f"Start dataset {theirs['name']}")).to_have_count(0)
    expect(table.get_by_role("button", name=f"Cancel dataset {theirs['name']}")).to_have_count(0)
    visit_check(page, "Project datasets as a Tester with edit")

    # the server is the enforcer: a forged cancel of the Admin's dataset is refused
    assert refused(forge(page, f"mutation {{ delete_dataset(dataset_id: {theirs['dataset_id']}) {{ status }} }}")) \
        == "FORBIDDEN"
    assert rest.call("GET", f"/datasets/{theirs['dataset_id']}", admin)["status"] == "queued"

    # their own: cancelled through the page, then offered for deletion
    table.get_by_role("button", name=f"Cancel dataset {mine['name']}").click()
    page.get_by_role("dialog").get_by_role("button", name="Cancel dataset").click()
    expect(table.get_by_role("button", name=f"Delete dataset {mine['name']}")).to_be_visible()
    assert rest.call("GET", f"/datasets/{mine['dataset_id']}", admin)["status"] == "cancelled"
