"""The dataset form (issue 33 item 5, the parts whose service params have landed): a project's only
schema is picked already, coverage mode (params.coverage) and the SQL dialect (shown once SQL is a
format) reach the created dataset's params."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.paths import BENCH
from tests.web.browser.helpers import Rest, heading, open_app, unique, visit_check


def test_dataset_form_only_schema_coverage_and_dialect(page: Page, rest: Rest) -> None:
    user = rest.create_user("Manager")
    project = rest.create_project(unique("Form"), by=user)
    pid = project["project_id"]
    schema = rest.upload_schema(BENCH / "customer_order.schema.json", by=user)
    rest.link_schema(pid, schema["schema_id"], by=user)

    open_app(page, f"/projects/{pid}", user.username, user.password)
    heading(page, project["name"])
    page.get_by_role("button", name="New dataset").click()
    dialog = page.get_by_role("dialog", name="New dataset")
    expect(dialog.get_by_role("combobox", name="Schema", exact=True)).to_have_value(re.compile(r"^customer_order"))
    name = unique("covered")
    dialog.get_by_role("textbox", name="Name", exact=True).fill(name)
    dialog.get_by_role("textbox", name="Record count", exact=True).fill("300")
    expect(dialog.get_by_role("combobox", name="SQL dialect", exact=True)).to_have_count(0)
    dialog.get_by_role("checkbox", name="SQL", exact=True).check()
    dialog.get_by_role("combobox", name="SQL dialect", exact=True).click()
    page.get_by_role("option", name="MySQL", exact=True).click()
    dialog.get_by_role("combobox", name="Coverage", exact=True).click()
    page.get_by_role("option", name=re.compile(r"^Pairwise")).click()
    visit_check(page, "Dataset form coverage and dialect")
    dialog.get_by_role("button", name="Create dataset").click()
    expect(dialog).to_be_hidden()
    listed = rest.call("GET", f"/datasets?project_id={pid}", user)
    made = [d for d in (listed["items"] if isinstance(listed, dict) else listed) if d["name"] == name]
    assert len(made) == 1, made
    assert made[0]["params"]["coverage"] == "pairwise" and made[0]["params"]["sql_dialect"] == "mysql", made
