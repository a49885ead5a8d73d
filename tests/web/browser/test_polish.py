"""Polish found by a first-time user (issue 33 item 6): no "Connection lost" flash on page load (but
the banner when the server is really gone), dataset cards at phone width, a readable "Failed" badge,
Cancel on a running dataset, the two-factor step as a step, the Projects menu's name, a key typed
while it closes, and the project list's tags and tenant."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pyotp
from playwright.sync_api import Page, expect

from tests.paths import BENCH
from tests.web.browser.helpers import (
    DESKTOP,
    PHONE,
    Actor,
    Rest,
    check_axe,
    heading,
    nav,
    open_app,
    unique,
    visit_check,
)

SCHEMA = BENCH / "customer_order.schema.json"
BROKEN = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": ["code"],
          "properties": {"code": {"type": "integer", "minimum": 1, "maximum": 5}}}

# every "Connection lost" alert the page shows, however briefly, is counted by a MutationObserver
# installed before the app's own scripts run (a flash would be gone before any expect saw it)
WATCH_BANNER = """
window.__connectionLost = 0;
window.__socketCloses = [];
const NativeSocket = window.WebSocket;
window.WebSocket = class extends NativeSocket {
  constructor(...args) {
    super(...args);
    this.addEventListener('close', (e) => window.__socketCloses.push(e.code + ' ' + e.reason));
    // graphql-ws parses text frames only: a binary frame closed the socket (4004) on its ack
    this.addEventListener('message', (e) => {
      if (typeof e.data !== 'string') window.__socketCloses.push('binary frame');
    });
  }
};
new MutationObserver(() => {
  for (const el of document.querySelectorAll('[role="alert"]')) {
    if (el.textContent.includes('Connection lost') && !el.dataset.counted) {
      el.dataset.counted = '1';
      window.__connectionLost += 1;
    }
  }
}).observe(document, { subtree: true, childList: true });
"""


def test_no_connection_lost_flash_on_load(page: Page, rest: Rest) -> None:
    page.add_init_script(WATCH_BANNER)
    open_app(page, "/")
    heading(page, "Dashboard")
    for path, name in (("/projects", "Projects"), ("/", "Dashboard")):
        page.goto(path)
        heading(page, name)
        page.wait_for_timeout(1500)
        closes = page.evaluate("() => window.__socketCloses")
        assert page.evaluate("() => window.__connectionLost") == 0, f"banner flashed on {path}; closes {closes}"
        assert closes == [], f"the live-updates socket closed on {path}: {closes}"

    # the server really out of reach: the banner shows, and goes once it answers again
    page.context.set_offline(True)
    nav(page, "Projects").click()
    expect(page.get_by_role("alert").filter(has_text="Connection lost")).to_be_visible()
    page.context.set_offline(False)
    nav(page, "Dashboard").click()
    heading(page, "Dashboard")
    expect(page.get_by_role("alert").filter(has_text="Connection lost")).to_have_count(0)


def graphql(rest: Rest, actor: Actor, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    r = httpx.post(f"{rest.server.url}/graphql", json={"query": query, "variables": variables or {}},
                   headers=actor.headers, timeout=30)
    body = r.json()
    assert r.status_code == 200 and not body.get("errors"), body
    return dict(body["data"])


def fits_the_width(page: Page) -> bool:
    return bool(page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"))


def test_datasets_as_cards_at_phone_width_cancel_and_failed_badge(page: Page, rest: Rest, tmp_path: Path) -> None:
    user = rest.create_user("Manager")
    project = rest.create_project(unique("Phone data"), by=user)
    pid = project["project_id"]
    schema = rest.upload_schema(SCHEMA, by=user)
    rest.link_schema(pid, schema["schema_id"], by=user)
    done = rest.create_dataset(pid, schema["schema_id"], 5, ["json", "csv"], by=user)
    waiting = rest.create_dataset(pid, schema["schema_id"], 5, ["json"], by=user, params={"deferred": True})
    # generates, but not 10 records with unique codes out of 5: a failure only the job meets
    broken_file = tmp_path / "broken.json"
    broken_file.write_text(json.dumps(BROKEN))
    broken = rest.upload_schema(broken_file, by=user)
    rest.link_schema(pid, broken["schema_id"], by=user)
    unique_codes = rest.call("POST", "/constraints", user, 201, json={
        "name": "unique codes", "schema_id": broken["schema_id"], "rules": [{"path": "code", "unique": True}]})
    failed = rest.create_dataset(pid, broken["schema_id"], 10, ["csv"], by=user,
                                 constraint_set_id=unique_codes["constraint_id"])
    assert rest.wait_dataset(done["dataset_id"], by=user)["status"] == "completed"
    assert rest.wait_dataset(failed["dataset_id"], by=user)["status"] == "failed"

    page.set_viewport_size(PHONE)
    open_app(page, f"/projects/{pid}", user.username, user.password)
    heading(page, project["name"])
    cards = page.get_by_role("list", name="Datasets")
    expect(cards.get_by_role("listitem")).to_have_count(3)
    expect(page.get_by_role("table", name="Datasets")).to_have_count(0)
    # Download of the completed one on screen, not scrolled off to the right
    download = cards.get_by_role("button", name=re.compile("Download"))
    download.scroll_into_view_if_needed()
    expect(download).to_be_in_viewport(ratio=1)
    # a queued or running dataset is cancelled, not deleted
    cancel = cards.get_by_role("button", name=f"Cancel dataset {waiting['name']}")
    cancel.scroll_into_view_if_needed()
    expect(cancel).to_be_in_viewport(ratio=1)
    expect(cancel).to_have_text("Cancel")
    expect(cards.get_by_role("button", name=f"Delete dataset {waiting['name']}")).to_have_count(0)
    delete = cards.get_by_role("button", name=f"Delete dataset {done['name']}")
    delete.scroll_into_view_if_needed()
    expect(delete).to_be_in_viewport(ratio=1)
    assert fits_the_width(page)
    visit_check(page, "Project datasets as cards")

    page.goto("/")
    heading(page, "Dashboard")
    assert fits_the_width(page)

    # the failure's notification: its "Failed" badge readable (axe's colour contrast)
    page.set_viewport_size(DESKTOP)
    page.goto("/notifications")
    heading(page, "Notifications")
    item = page.get_by_role("list", name="Notifications").get_by_role("listitem").filter(has_text=failed["name"])
    expect(item.get_by_text("Failed", exact=True)).to_be_visible()
    visit_check(page, "Notifications with a failure")

    # at desktop width the datasets are a table again, with Cancel for the queued one
    page.goto(f"/projects/{pid}")
    table = page.get_by_role("table", name="Datasets")
    expect(table.get_by_role("button", name=f"Cancel dataset {waiting['name']}")).to_have_text("Cancel")


def test_two_factor_is_a_step_not_an_error(page: Page, rest: Rest) -> None:
    user = rest.create_user("Tester")
    started = graphql(rest, user, "mutation { enable_2fa(input: {}) { secret } }")["enable_2fa"]
    totp = pyotp.TOTP(started["secret"])
    graphql(rest, user, "mutation($c: String!) { enable_2fa(input: {code: $c}) { enabled } }", {"c": totp.now()})

    page.goto("/login")
    heading(page, "Log in")
    page.get_by_role("textbox", name="Username", exact=True).fill(user.username)
    page.get_by_role("textbox", name="Password", exact=True).fill(user.password)
    page.get_by_role("button", name="Log in").click()
    code = page.get_by_role("textbox", name="One-time code")
    expect(code).to_be_visible()
    expect(code).to_be_focused()
    expect(page.get_by_role("status").filter(
        has_text="Enter the 6-digit code from your authenticator app")).to_be_visible()
    # a step, not an error: no alert, nothing quoting the API ('otp')
    expect(page.get_by_role("alert")).to_have_count(0)
    expect(page.get_by_text("otp", exact=False)).to_have_count(0)
    visit_check(page, "Log in two-factor step")

    # a wrong code is an error
    code.fill("000000")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_contain_text("one-time code")
    # the code of the next time step: fresh (the enrolment used this step's)
    code.fill(totp.at(time.time() + totp.interval))
    page.get_by_role("button", name="Log in").click()
    heading(page, "Dashboard")


def test_projects_menu_named_and_a_key_typed_while_it_closes(page: Page, rest: Rest) -> None:
    open_app(page, "/")
    heading(page, "Dashboard")
    page.keyboard.press("g")
    page.keyboard.press("p")
    menu = page.get_by_role("dialog", name="Projects menu")
    expect(menu).to_be_visible()
    expect(menu.get_by_role("textbox", name="Search projects")).to_be_focused()
    check_axe(page, "Projects menu")
    # Esc then ? at typing speed: the ? reaches the shortcuts while the menu is still closing
    page.keyboard.press("Escape", delay=30)
    page.keyboard.press("?")
    expect(page.get_by_role("dialog", name="Keyboard shortcuts")).to_be_visible()
    expect(menu).to_be_hidden()


def test_project_list_shows_tags_and_the_superusers_tenant(page: Page, rest: Rest) -> None:
    tenant_name = unique("Tenant")
    created = graphql(rest, rest.root, """mutation($i: TenantCreateInput!) { create_tenant(input: $i) { tenant_id } }""",
                      {"i": {"name": tenant_name, "admin_username": unique("tadmin"),
                             "admin_email": f"{unique('t')}@example.com", "admin_password": "tenant-password-123"}})
    tag = unique("tag").lower()
    name = unique("Tagged")
    project = rest.create_project(name, tags=[tag, "billing"],
                                  tenant_id=created["create_tenant"]["tenant_id"])
    assert project["tenant_id"] == created["create_tenant"]["tenant_id"]

    open_app(page, "/projects")
    heading(page, "Projects")
    page.get_by_role("textbox", name="Search projects").fill(name)
    table = page.get_by_role("table", name="Projects")
    expect(table.get_by_role("columnheader", name="Tenant")).to_be_visible()
    row = table.get_by_role("row").filter(has_text=name)
    expect(row).to_have_count(1)
    expect(row.get_by_role("cell", name=tenant_name)).to_be_visible()
    expect(row.get_by_role("button", name=f"Filter by tag {tag}")).to_be_visible()
    expect(row.get_by_role("button", name="Filter by tag billing")).to_be_visible()
    # the list at rest: the search answered (header and one row), not faded while being answered
    expect(table.get_by_role("row")).to_have_count(2)
    expect(table.locator("tbody")).to_have_css("opacity", "1")
    visit_check(page, "Projects as a SuperUser")

    # at phone width a list of the same, tenant and tags included
    page.set_viewport_size(PHONE)
    listed = page.get_by_role("list", name="Projects").get_by_role("listitem").filter(has_text=name)
    expect(listed).to_contain_text(f"Tenant {tenant_name}")
    expect(listed.get_by_role("button", name=f"Filter by tag {tag}")).to_be_in_viewport()
    assert fits_the_width(page)
    listed.get_by_role("button", name=f"Filter by tag {tag}").click()
    expect(page).to_have_url(re.compile(rf"tag={tag}"))


def test_project_list_of_a_tenant_user_has_no_tenant_column(page: Page, rest: Rest) -> None:
    user = rest.create_user("Manager")
    name = unique("Own")
    rest.create_project(name, by=user, tags=["mine"])
    open_app(page, "/projects", user.username, user.password)
    heading(page, "Projects")
    table = page.get_by_role("table", name="Projects")
    expect(table.get_by_role("row").filter(has_text=name).get_by_role("button", name="Filter by tag mine")).to_be_visible()
    expect(table.get_by_role("columnheader", name="Tenant")).to_have_count(0)
