"""Settings and accounts: two-factor enrolment with a pyotp code and a log-in with a fresh one, an
API token created in Settings -> Tokens and used over REST, an invitation followed to Set password."""

from __future__ import annotations

import re
import time

import httpx
import pyotp
from playwright.sync_api import Page, expect

from tests.web.browser.helpers import API, USER_PASSWORD, Rest, heading, log_in, open_app, unique, visit_check
from tests.web.browser.server import Server


def log_out(page: Page) -> None:
    page.get_by_role("button", name="Account menu").click()
    page.get_by_role("menuitem", name="Log out").click()
    heading(page, "Log in")


def test_two_factor_enrolment_and_log_in_with_a_code(page: Page, rest: Rest) -> None:
    user = rest.create_user("Manager")
    open_app(page, "/settings/security", user.username, user.password)
    heading(page, "Settings")
    expect(page.get_by_role("tab", name="Security")).to_have_attribute("aria-selected", "true")
    page.get_by_role("button", name="Set up two-factor authentication").click()
    expect(page.get_by_role("img", name="QR code for your authenticator app")).to_be_visible()
    secret = page.get_by_role("textbox", name="Secret key").input_value()
    assert re.fullmatch(r"[A-Z2-7]{16,}", secret), secret
    totp = pyotp.TOTP(secret)
    page.get_by_role("textbox", name="Authentication code").fill(totp.now())
    page.get_by_role("button", name="Turn on two-factor authentication").click()

    codes = page.get_by_role("list", name="Recovery codes").get_by_role("listitem")
    expect(codes).to_have_count(10)
    assert all(re.fullmatch(r"[0-9a-f]{5}-[0-9a-f]{5}", c.strip()) for c in codes.all_inner_texts())
    visit_check(page, "Settings security")
    page.get_by_role("button", name="I have saved them").click()
    expect(page.get_by_role("button", name="Turn off two-factor authentication")).to_be_visible()

    log_out(page)
    # the code of the next time step: fresh (the enrolment used this step's), and inside the window
    log_in(page, user.username, user.password, otp=totp.at(time.time() + totp.interval))
    expect(page.get_by_role("button", name=re.compile("account menu", re.I))).to_be_visible()


def test_api_token_from_settings_works_over_rest(page: Page, rest: Rest, server: Server) -> None:
    user = rest.create_user("Manager")
    name = unique("nightly-ci")
    open_app(page, "/settings/tokens", user.username, user.password)
    heading(page, "Settings")
    page.get_by_role("textbox", name="Token name").fill(name)
    page.get_by_role("button", name="Create token").click()
    dialog = page.get_by_role("dialog", name="Copy your new token")
    expect(dialog).to_be_visible()
    dialog.get_by_role("button", name="Copy token").click()
    copied = page.evaluate("() => navigator.clipboard.readText()")
    assert copied and copied == dialog.get_by_role("textbox", name="New API token").input_value()
    dialog.get_by_role("button", name="Done").click()
    expect(dialog).to_be_hidden()
    expect(page.get_by_role("cell", name=re.compile("^" + re.escape(name)))).to_be_visible()
    visit_check(page, "Settings tokens")

    r = httpx.get(f"{server.url}{API}/users/me", headers={"Authorization": f"Bearer {copied}"})
    assert r.status_code == 200, r.text
    assert r.json()["username"] == user.username


def test_invitation_link_to_set_password_then_log_in(page: Page, other_page: Page, rest: Rest,
                                                     server: Server) -> None:
    admin = rest.create_user("Admin")
    invitee = unique("invitee")
    open_app(page, "/admin/users", admin.username, admin.password)
    heading(page, "Administration")
    page.get_by_role("button", name="Invite user").click()
    dialog = page.get_by_role("dialog", name="Invite user")
    dialog.get_by_role("textbox", name="Username").fill(invitee)
    dialog.get_by_role("textbox", name="Email").fill(f"{invitee}@example.com")
    dialog.get_by_role("combobox", name="Role").click()
    page.get_by_role("option", name="Tester", exact=True).click()
    dialog.get_by_role("button", name="Get invitation link").click()
    link = dialog.get_by_role("textbox", name="Invitation link").input_value()
    # TDG_PUBLIC_URL is unset: the link names the address the server listens on
    assert link.startswith(f"{server.url}/setup-password?token="), link
    dialog.get_by_role("button", name="Done").click()

    other_page.goto(link)
    heading(other_page, "Set password")
    visit_check(other_page, "Set password")
    other_page.get_by_role("textbox", name="New password").fill(USER_PASSWORD)
    other_page.get_by_role("textbox", name="Repeat password").fill(USER_PASSWORD)
    other_page.get_by_role("button", name="Set password").click()
    expect(other_page.get_by_role("status")).to_contain_text(invitee)
    other_page.get_by_role("link", name="Go to Log in").click()
    log_in(other_page, invitee, USER_PASSWORD)
    heading(other_page, "Dashboard")
    # the link worked once
    other_page.goto(link)
    other_page.get_by_role("textbox", name="New password").fill(USER_PASSWORD)
    other_page.get_by_role("textbox", name="Repeat password").fill(USER_PASSWORD)
    other_page.get_by_role("button", name="Set password").click()
    expect(other_page.get_by_role("alert")).to_contain_text("invalid or has already been used")
