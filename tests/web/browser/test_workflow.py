"""The spec's typical workflow, by clicking only: a project, a member, a schema uploaded with the file
chooser, a constraint set, a preview, a 100,000-record dataset in all four formats watched until it
completes (live, without reloading), each format downloaded and checked."""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from tests.web.browser import files
from tests.web.browser.helpers import Rest, heading, nav, open_app, unique, visit_check
from tests.web.browser.server import ROOT

BENCH = ROOT / "tests" / "fixtures" / "bench"
JSON_SCHEMA = BENCH / "customer_order.schema.json"
XSD = BENCH / "customer_order.xsd"
RECORDS = 100_000
GENERATION_TIMEOUT_MS = 120_000


def choose(page: Page, field: Locator, option: str | re.Pattern[str], search: str | None = None) -> None:
    """Pick `option` in a Select (typing `search` first in a searchable one)."""
    field.click()
    if search is not None:
        field.fill(search)
    page.get_by_role("option", name=option, exact=isinstance(option, str) or None).click()
    expect(page.get_by_role("listbox")).to_have_count(0)


def upload_schema(page: Page, path: Path, name: str, project: str) -> int:
    """Library -> Upload schema -> Name, Project -> Choose file; returns the new schema's id."""
    nav(page, "Library").click()
    heading(page, "Library")
    page.get_by_role("button", name="Upload schema").click()
    upload = page.get_by_role("main")
    expect(page.get_by_role("button", name="Choose file")).to_be_visible()
    upload.get_by_role("textbox", name="Name", exact=True).fill(name)
    choose(page, upload.get_by_role("combobox", name="Project", exact=True), project, search=project)
    with page.expect_file_chooser() as chooser:
        upload.get_by_role("button", name="Choose file").click()
    chooser.value.set_files(str(path))
    expect(page).to_have_url(re.compile(r"/library/schemas/\d+$"), timeout=30_000)
    heading(page, name)
    return int(page.url.rsplit("/", 1)[1])


def add_rule(page: Page, index: int, field: str) -> Locator:
    """Add rule -> pick its field; returns the rule's list item."""
    page.get_by_role("button", name="Add rule").click()
    # an option names the field and its type ("status string")
    choose(page, page.get_by_role("combobox", name=f"Field for rule {index}", exact=True),
           re.compile(rf"^{re.escape(field)}\b"), search=field)
    return page.get_by_role("listitem", name=f"Rule for {field}")


def new_dataset(page: Page, name: str, schema_label: str, constraint_set: str | None, records: int,
                formats: list[str]) -> None:
    """Datasets tab -> New dataset: fill the form, look at its preview, create."""
    page.get_by_role("tab", name="Datasets").click()
    page.get_by_role("button", name="New dataset").click()
    dialog = page.get_by_role("dialog", name="New dataset")
    expect(dialog).to_be_visible()
    dialog.get_by_role("textbox", name="Name", exact=True).fill(name)
    choose(page, dialog.get_by_role("combobox", name="Schema", exact=True), schema_label)
    if constraint_set is not None:
        choose(page, dialog.get_by_role("combobox", name="Constraint set", exact=True), constraint_set)
    dialog.get_by_role("textbox", name="Record count", exact=True).fill(str(records))
    for label in ("CSV", "JSON", "XML", "SQL"):
        box = dialog.get_by_role("checkbox", name=label, exact=True)
        if (label.lower() in formats) != box.is_checked():
            box.click()
    dialog.get_by_role("button", name="Preview", exact=True).click()
    dialog.get_by_role("radio", name="JSON", exact=True).check()  # the text beside the grid
    expect(dialog.get_by_label("Preview content (JSON)")).to_contain_text('"first_name"')
    dialog.get_by_role("button", name="Create dataset").click()
    expect(dialog).to_be_hidden()


def dataset_row(page: Page, name: str) -> Locator:
    return page.get_by_role("table", name="Datasets").get_by_role("row").filter(
        has=page.get_by_role("cell", name=name))


def download(page: Page, row: Locator, label: str, folder: Path) -> Path:
    row.get_by_role("button", name="Download").click()
    with page.expect_download(timeout=60_000) as info:
        page.get_by_role("menuitem", name=re.compile(rf"^{label}\b")).click()
    target = folder / info.value.suggested_filename
    info.value.save_as(target)
    return target


def test_typical_workflow_by_clicking(page: Page, rest: Rest, tmp_path: Path) -> None:
    member = rest.create_user("Tester")
    project = unique("Orders project")
    schema_name = unique("Customer orders")
    set_name = unique("Paid orders")
    dataset = unique("Orders 100k")

    # a project, through the New project dialog
    open_app(page, "/projects")
    heading(page, "Projects")
    visit_check(page, "Projects")
    page.get_by_role("button", name="New project").click()
    dialog = page.get_by_role("dialog", name="New project")
    dialog.get_by_role("textbox", name="Name", exact=True).fill(project)
    dialog.get_by_role("textbox", name="Description", exact=True).fill("Orders for the load test")
    dialog.get_by_role("button", name="Create project").click()
    expect(page).to_have_url(re.compile(r"/projects/\d+$"))
    heading(page, project)
    project_url = page.url

    # a member with the edit role
    page.get_by_role("tab", name="Members").click()
    page.get_by_role("button", name="Add member").click()
    dialog = page.get_by_role("dialog", name="Add member")
    choose(page, dialog.get_by_role("combobox", name="User", exact=True), member.username, search=member.username)
    choose(page, dialog.get_by_role("combobox", name="Project role", exact=True), "edit")
    dialog.get_by_role("button", name="Add member").click()
    expect(dialog).to_be_hidden()
    members = page.get_by_role("table", name="Members")
    expect(members.get_by_role("row").filter(has_text=member.username)).to_have_count(1)
    visit_check(page, "Project members")

    # the schema, with the file chooser, linked to the project on the way
    upload_schema(page, JSON_SCHEMA, schema_name, project)
    expect(page.get_by_role("link", name=project)).to_be_visible()
    page.get_by_role("radio", name="JSON", exact=True).check()  # the text beside the grid
    expect(page.get_by_label("Preview content (JSON)")).to_contain_text('"line_items"')
    visit_check(page, "Schema")

    # a constraint set: status among two values, amount in a range
    page.get_by_role("link", name="New constraint set").click()
    heading(page, "New constraint set")
    page.get_by_role("textbox", name="Name", exact=True).fill(set_name)
    status = add_rule(page, 1, "status")
    values = status.get_by_label("Values for status", exact=True)
    for value in ("paid", "shipped"):
        values.fill(value)
        values.press("Enter")
    amount = add_rule(page, 2, "amount")
    amount.get_by_role("textbox", name="Minimum for amount").fill("10")
    amount.get_by_role("textbox", name="Maximum for amount").fill("500")
    page.get_by_role("button", name="Save constraint set").click()
    expect(page).to_have_url(re.compile(r"/library/constraints/\d+$"))
    heading(page, set_name)
    # the preview of the saved set follows its rules
    page.get_by_role("radio", name="JSON", exact=True).check()
    preview = page.get_by_label("Preview content (JSON)")
    expect(preview).to_contain_text('"status"')
    sample = json.loads(preview.inner_text())
    assert sample and all(r["status"] in ("paid", "shipped") and 10 <= r["amount"] <= 500 for r in sample), sample
    visit_check(page, "Constraint set")

    # the dataset, in all four formats, from the project page
    nav(page, "Projects").click()
    heading(page, "Projects")
    page.get_by_role("link", name=project, exact=True).click()
    heading(page, project)
    assert page.url == project_url
    page.evaluate("() => { window.__sameDocument = true; }")
    new_dataset(page, dataset, f"{schema_name} (JSON Schema)", set_name, RECORDS, ["csv", "json", "xml", "sql"])
    row = dataset_row(page, dataset)
    expect(row).to_have_count(1)
    # live: the row reaches completed without a reload
    expect(row.get_by_role("cell", name="completed", exact=True)).to_be_visible(timeout=GENERATION_TIMEOUT_MS)
    expect(row.get_by_role("progressbar", name=f"Progress of {dataset}")).to_have_attribute("aria-valuenow", "100")
    assert page.evaluate("() => window.__sameDocument === true"), "the page was reloaded"
    visit_check(page, "Project datasets")

    json_file = download(page, row, "JSON", tmp_path)
    json_check = files.JsonRecordsCheck(json_file, JSON_SCHEMA, RECORDS)  # runs while the test goes on
    try:
        assert all(r["status"] in ("paid", "shipped") and 10 <= r["amount"] <= 500 for r in json_check.records)
        files.check_csv(download(page, row, "CSV", tmp_path), RECORDS)
        files.check_sql(download(page, row, "SQL", tmp_path), RECORDS)
        files.check_xml(download(page, row, "XML", tmp_path), RECORDS)

        # the dashboard lists it among the recent datasets
        nav(page, "Dashboard").click()
        heading(page, "Dashboard")
        recent = page.get_by_role("region", name="Recent datasets")
        expect(recent.get_by_role("cell", name=re.compile(re.escape(dataset)))).to_be_visible()
        visit_check(page, "Dashboard")
    finally:
        json_check.result()


def test_xsd_schema_workflow(page: Page, rest: Rest, tmp_path: Path) -> None:
    """A smaller second flow: an XSD uploaded with the file chooser, XML generated and valid against it."""
    project = rest.create_project(unique("XSD project"))
    schema_name = unique("Customer orders XSD")
    dataset = unique("Orders XML")
    open_app(page, "/library")
    upload_schema(page, XSD, schema_name, project["name"])
    expect(page.get_by_role("heading", name="Fields")).to_be_visible()
    page.goto(f"/projects/{project['project_id']}")
    heading(page, project["name"])
    new_dataset(page, dataset, f"{schema_name} (XSD)", None, 500, ["xml"])
    row = dataset_row(page, dataset)
    expect(row.get_by_role("cell", name="completed", exact=True)).to_be_visible(timeout=GENERATION_TIMEOUT_MS)
    path = download(page, row, "XML", tmp_path)
    files.check_xml(path, 500, xsd=XSD, container="customer_orders")
