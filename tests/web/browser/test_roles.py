"""A Tester is not offered Admin actions, and a GraphQL mutation forged from the page with their
own session still gets the server's refusal."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from tests.web.browser.helpers import TOKEN_KEY, Rest, heading, nav, open_app, unique, visit_check

FORGE = """async ([query, key]) => {
    const response = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer ' + localStorage.getItem(key) },
        body: JSON.stringify({ query }),
    });
    return { status: response.status, body: await response.json() };
}"""


def forge(page: Page, query: str) -> dict[str, Any]:
    result = page.evaluate(FORGE, [query, TOKEN_KEY])
    assert result["status"] == 200, result
    return dict(result["body"])


def refused(body: dict[str, Any]) -> str:
    errors = body.get("errors") or []
    assert errors and not body.get("data"), body
    kind = str(errors[0].get("extensions", {}).get("classification", ""))
    assert kind in ("FORBIDDEN", "NOT_FOUND"), body
    return kind


def test_tester_is_not_offered_admin_actions_and_the_server_refuses_them(page: Page, rest: Rest) -> None:
    tester = rest.create_user("Tester")
    shared = rest.create_project(unique("Shared project"))
    other = rest.create_project(unique("Other project"))
    rest.add_member(shared["project_id"], tester.id, "view")

    open_app(page, "/projects", tester.username, tester.password)
    heading(page, "Projects")
    expect(nav(page, "Projects")).to_be_visible()
    expect(nav(page, "Administration")).to_have_count(0)
    expect(page.get_by_role("button", name="New project")).to_have_count(0)
    expect(page.get_by_role("link", name=shared["name"])).to_be_visible()
    expect(page.get_by_role("link", name=other["name"])).to_have_count(0)
    visit_check(page, "Projects as Tester")

    page.get_by_role("link", name=shared["name"]).click()
    heading(page, shared["name"])
    expect(page.get_by_role("tab", name="Datasets")).to_be_visible()
    for action in ("Delete project", "Edit project", "New dataset"):
        expect(page.get_by_role("button", name=action)).to_have_count(0)
    page.get_by_role("tab", name="Members").click()
    expect(page.get_by_role("tab", name="Members")).to_have_attribute("aria-selected", "true")
    expect(page.get_by_role("button", name="Add member")).to_have_count(0)
    visit_check(page, "Project as Tester")

    # the Administration page itself offers nothing
    page.goto("/admin")
    heading(page, "Administration")
    expect(page.get_by_role("button", name="Invite user")).to_have_count(0)
    expect(page.get_by_role("button", name="Create user")).to_have_count(0)

    # forged mutations with the Tester's own session: the server is the enforcer
    refused(forge(page, f"mutation {{ delete_project(project_id: {shared['project_id']}) {{ deleted id }} }}"))
    refused(forge(page, f"mutation {{ delete_project(project_id: {other['project_id']}) {{ deleted id }} }}"))
    refused(forge(page, 'mutation { create_user(input: {username: "mallory", password: "mallory-pass-123", '
                        'role: Admin}) { id } }'))
    refused(forge(page, f'mutation {{ update_user(user_id: {tester.id}, input: {{role: SuperUser}}) {{ id role }} }}'))
    # nothing changed
    assert rest.call("GET", f"/projects/{shared['project_id']}", rest.root)["name"] == shared["name"]
    me = rest.call("GET", "/users/me", tester)
    assert me["role"] == "Tester"
