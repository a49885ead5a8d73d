"""Settings -> API tokens: a token limited to one project and to read and download, chosen with
labelled controls; the list shows its scope, and the API holds the token to it."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page, expect

from tests.web.browser.helpers import API, Rest, heading, open_app, unique, visit_check
from tests.web.browser.server import Server


def test_a_scoped_token_from_settings(page: Page, rest: Rest, server: Server) -> None:
    user = rest.create_user("Manager")
    mine = rest.create_project(unique("Nightly"), by=user)
    other = rest.create_project(unique("Elsewhere"), by=user)
    name = unique("ci-read")
    open_app(page, "/settings/tokens", user.username, user.password)
    heading(page, "Settings")
    page.get_by_role("textbox", name="Token name").fill(name)
    page.get_by_role("switch", name="Limit this token to some projects and actions").check()
    page.get_by_role("combobox", name="Projects").click()
    page.get_by_role("option", name=mine["name"]).click()
    page.keyboard.press("Escape")
    actions = page.get_by_role("group", name="Actions")
    expect(actions.get_by_role("checkbox", name="Read")).to_be_checked()
    actions.get_by_role("checkbox", name="Generate").uncheck()
    expect(actions.get_by_role("checkbox", name="Upload")).not_to_be_checked()
    expect(actions.get_by_role("checkbox", name="Download")).to_be_checked()
    visit_check(page, "Settings tokens with a scope")
    page.get_by_role("button", name="Create token").click()

    dialog = page.get_by_role("dialog", name="Copy your new token")
    secret = dialog.get_by_role("textbox", name="New API token").input_value()
    dialog.get_by_role("button", name="Done").click()
    expect(dialog).to_be_hidden()
    row = page.get_by_role("row", name=re.compile(re.escape(name)))
    expect(row.get_by_role("cell", name=f"Read, Download · {mine['name']}")).to_be_visible()

    headers = {"Authorization": f"Bearer {secret}"}
    assert httpx.get(f"{server.url}{API}/projects/{mine['project_id']}", headers=headers).status_code == 200
    assert httpx.get(f"{server.url}{API}/projects/{other['project_id']}", headers=headers).status_code == 404
    made = httpx.post(f"{server.url}{API}/datasets/create", headers=headers,
                      json={"name": "x", "project_id": mine["project_id"], "schema_id": 1, "record_count": 1})
    assert made.status_code == 403, made.text
