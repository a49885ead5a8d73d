"""Log in, a wrong password, log out, and a session revoked elsewhere (back to Log in, then back to
the page the user was on)."""

from __future__ import annotations

import re

import httpx
from playwright.sync_api import Page, expect

from tests.web.browser.helpers import API, Rest, heading, log_in, nav, stored_token, visit_check
from tests.web.browser.server import Server


def test_log_in_wrong_password_and_log_out(page: Page, rest: Rest) -> None:
    user = rest.create_user("Manager")
    page.goto("/")
    expect(page).to_have_url(re.compile(r"/login$"))
    heading(page, "Log in")
    visit_check(page, "Log in")

    page.get_by_role("textbox", name="Username", exact=True).fill(user.username)
    page.get_by_role("textbox", name="Password", exact=True).fill("not-the-password")
    page.get_by_role("button", name="Log in").click()
    # the server's own sentence, not a generic one
    expect(page.get_by_role("alert")).to_contain_text("Incorrect username or password.")
    heading(page, "Log in")

    page.get_by_role("textbox", name="Password", exact=True).fill(user.password)
    page.get_by_role("button", name="Log in").click()
    heading(page, "Dashboard")
    expect(page).to_have_url(re.compile(r"/$"))
    for name in ("Dashboard", "Projects", "Library", "Analytics", "Settings"):
        expect(nav(page, name)).to_be_visible()

    page.get_by_role("button", name="Account menu").click()
    page.get_by_role("menuitem", name="Log out").click()
    heading(page, "Log in")
    assert page.evaluate("() => window.localStorage.getItem('tdg.token')") is None
    # the app is closed again: a deep link goes to Log in
    page.goto("/library")
    heading(page, "Log in")


def test_revoked_session_returns_to_log_in_then_back(page: Page, rest: Rest, server: Server) -> None:
    user = rest.create_user("Manager")
    page.goto("/projects")
    expect(page).to_have_url(re.compile(r"/login\?next=%2Fprojects$"))
    log_in(page, user.username, user.password)
    heading(page, "Projects")
    expect(page).to_have_url(re.compile(r"/projects$"))

    # the same token logged out elsewhere (another tab, a script)
    token = stored_token(page)
    r = httpx.get(f"{server.url}{API}/users/logout", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, r.text

    # the next action needs the server: it answers unauthenticated and the app goes to Log in
    nav(page, "Library").click()
    heading(page, "Log in")
    expect(page).to_have_url(re.compile(r"/login\?next=%2Flibrary$"))
    log_in(page, user.username, user.password)
    heading(page, "Library")
    expect(page).to_have_url(re.compile(r"/library$"))
