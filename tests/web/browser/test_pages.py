"""Every page the other flows do not visit, reached by clicking: each passes the axe-core check and
gets its screenshots at 1280x800 and 390x844 (test-artifacts/screenshots/<backend>/)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.web.browser.helpers import Rest, heading, nav, open_app, unique, visit_check
from tests.web.browser.test_workflow import JSON_SCHEMA


def tab(page: Page, name: str) -> None:
    page.get_by_role("tab", name=name, exact=True).click()
    expect(page.get_by_role("tab", name=name, exact=True)).to_have_attribute("aria-selected", "true")


def test_every_page_passes_axe_and_is_captured(page: Page, rest: Rest) -> None:
    project = rest.create_project(unique("Tour project"), tags=["tour"])
    schema = rest.upload_schema(JSON_SCHEMA)
    rest.link_schema(project["project_id"], schema["schema_id"])
    rest.call("POST", "/constraints", rest.root, 201, json={
        "name": unique("Tour rules"), "schema_id": schema["schema_id"],
        "rules": [{"path": "status", "enum": ["paid"]}]})
    integration = rest.call("POST", "/integrations", rest.root, 201, json={
        "name": unique("Tour webhook"), "provider": "webhook", "config": {"url": "http://127.0.0.1:9/hook"}})
    dataset = rest.create_dataset(project["project_id"], schema["schema_id"], 500, ["csv", "json"])
    assert rest.wait_dataset(dataset["dataset_id"])["status"] == "completed"

    open_app(page, "/library")
    heading(page, "Library")
    expect(page.get_by_role("link", name=schema["name"]).first).to_be_visible()
    visit_check(page, "Library schemas")
    tab(page, "Constraint sets")
    expect(page.get_by_role("link", name=re.compile("^Tour rules_")).first).to_be_visible()
    visit_check(page, "Library constraint sets")

    page.goto(f"/projects/{project['project_id']}")
    heading(page, project["name"])
    tab(page, "Schemas")
    expect(page.get_by_role("table", name="Linked schemas")).to_be_visible()
    visit_check(page, "Project schemas")
    tab(page, "Details")
    visit_check(page, "Project details")

    nav(page, "Integrations").click()
    heading(page, "Integrations")
    link = page.get_by_role("link", name=integration["name"])
    expect(link).to_be_visible()
    visit_check(page, "Integrations")
    link.click()
    heading(page, integration["name"])
    visit_check(page, "Integration")

    nav(page, "Analytics").click()
    heading(page, "Analytics")
    expect(page.get_by_role("status", name="Loading analytics")).to_have_count(0)
    visit_check(page, "Analytics")

    nav(page, "Settings").click()
    heading(page, "Settings")
    expect(page.get_by_role("textbox", name="Display name")).to_be_visible()
    visit_check(page, "Settings profile")
    tab(page, "Notifications")
    expect(page.get_by_role("switch").first).to_be_visible()
    visit_check(page, "Settings notifications")

    nav(page, "Administration").click()
    heading(page, "Administration")
    expect(page.get_by_role("table", name="Users")).to_be_visible()
    visit_check(page, "Administration users")
    tab(page, "Audit log")
    expect(page.get_by_role("table", name="Audit log")).to_be_visible()
    visit_check(page, "Administration audit log")
    tab(page, "Tenants")
    expect(page.get_by_role("table", name="Tenants")).to_be_visible()
    visit_check(page, "Administration tenants")

    page.get_by_role("button", name=re.compile(r"^Notifications: \d+ unread")).click()
    page.get_by_role("link", name=re.compile("^All notifications")).click()
    heading(page, "Notifications")
    expect(page.get_by_role("list", name="Notifications").get_by_role("listitem").first).to_be_visible()
    visit_check(page, "Notifications")

    page.goto("/no/such/page")
    heading(page, "Page not found")
    visit_check(page, "Page not found")
