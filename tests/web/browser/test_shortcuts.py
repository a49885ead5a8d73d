"""The spec's keyboard shortcuts: g d, g p (Projects menu), g l, g i, g a, ? (help) and Esc, and none
of them while typing in a field."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.web.browser.helpers import Rest, heading, open_app, unique


def keys(page: Page, *sequence: str) -> None:
    for key in sequence:
        page.keyboard.press(key)


def test_every_shortcut_and_the_help_dialog(page: Page, rest: Rest) -> None:
    project = rest.create_project(unique("Shortcut project"))
    open_app(page, "/settings")
    heading(page, "Settings")
    # typing in a field: letters are text, not shortcuts (and ? is a character)
    field = page.get_by_role("textbox", name="Display name")
    field.fill("")
    field.press_sequentially("g d g l ?")
    expect(field).to_have_value("g d g l ?")
    expect(page).to_have_url(re.compile(r"/settings$"))
    expect(page.get_by_role("dialog", name="Keyboard shortcuts")).to_have_count(0)
    field.blur()

    keys(page, "g", "d")
    heading(page, "Dashboard")
    expect(page).to_have_url(re.compile(r"/$"))
    keys(page, "g", "l")
    heading(page, "Library")
    expect(page).to_have_url(re.compile(r"/library$"))
    keys(page, "g", "i")
    heading(page, "Integrations")
    expect(page).to_have_url(re.compile(r"/integrations$"))
    keys(page, "g", "a")
    heading(page, "Analytics")
    expect(page).to_have_url(re.compile(r"/analytics$"))

    # ? opens the help dialog listing every shortcut; Esc closes it
    keys(page, "?")
    dialog = page.get_by_role("dialog", name="Keyboard shortcuts")
    expect(dialog).to_be_visible()
    for description in ("Go to Dashboard", "Open the Projects menu", "Go to Library", "Go to Integrations",
                        "Go to Analytics", "Show keyboard shortcuts", "Close a modal or dialog"):
        expect(dialog.get_by_role("cell", name=description)).to_be_visible()
    keys(page, "Escape")
    expect(dialog).to_be_hidden()

    # g p opens the Projects menu, searched on the server; picking a project opens it
    keys(page, "g", "p")
    search = page.get_by_role("textbox", name="Search projects")
    expect(search).to_be_visible()
    expect(search).to_be_focused()
    # typing in a field: the letters are the query, not shortcuts
    search.press_sequentially("g l")
    expect(page).to_have_url(re.compile(r"/analytics$"))
    search.fill(project["name"])
    page.get_by_role("button", name=re.compile(re.escape(project["name"]))).click()
    expect(page).to_have_url(re.compile(rf"/projects/{project['project_id']}$"))
    heading(page, project["name"])
    expect(search).to_be_hidden()

    # Esc closes the Projects menu too
    keys(page, "g", "p")
    expect(search).to_be_visible()
    keys(page, "Escape")
    expect(search).to_be_hidden()
    expect(page).to_have_url(re.compile(rf"/projects/{project['project_id']}$"))
