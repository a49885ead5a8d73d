"""A schema no record can be generated from, flagged in the browser (issue 32 item 6, web side): the
Library's schema list marks it with a badge whose accessible text says why it is flagged, the schema
page shows the reason the server gives (GraphQL/REST `problem`), and the dataset form warns when it
is the chosen schema. The schema is tests/api/test_schema_problems.py's UNSATISFIABLE (an integer
between 10 and 5, a two-letter enum with minLength 3)."""

from __future__ import annotations

import json
import re

from playwright.sync_api import Page, expect

from tests.api.test_schema_problems import UNSATISFIABLE
from tests.web.browser.helpers import Rest, heading, open_app, unique, visit_check


def test_unsatisfiable_schema_flagged(page: Page, rest: Rest) -> None:
    user = rest.create_user("Manager")
    name = unique("impossible")
    bad = rest.call("POST", "/schemas", user, 201,
                    files={"file": (f"{name}.json", json.dumps(UNSATISFIABLE).encode())})
    assert bad["satisfiable"] is False, bad
    detail = rest.call("GET", f"/schemas/{bad['schema_id']}", user)
    problem = detail["problem"]
    assert problem.startswith("No record can be generated: ") and "count: no integer lies between 10 and 5" in problem
    project = rest.create_project(unique("Flags"), by=user)
    rest.link_schema(project["project_id"], bad["schema_id"], by=user)

    # the list: a badge beside the name, its accessible text saying what it means
    open_app(page, "/library", user.username, user.password)
    heading(page, "Library")
    page.get_by_role("textbox", name="Search schemas").fill(bad["name"])
    table = page.get_by_role("table", name="Schemas")
    row = table.get_by_role("row").filter(has=page.get_by_role("link", name=bad["name"], exact=True))
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Unsatisfiable: no record of its default root can be generated")
    visit_check(page, "Library unsatisfiable schema")

    # the detail: the flag and the server's reason, word for word
    row.get_by_role("link", name=bad["name"], exact=True).click()
    heading(page, bad["name"])
    alert = page.get_by_role("alert").filter(has_text="No record can be generated from this schema")
    expect(alert).to_be_visible()
    expect(alert).to_contain_text(problem)
    expect(alert).to_contain_text("Unsatisfiable: no record of its default root can be generated")
    visit_check(page, "Schema page unsatisfiable")

    # the dataset form: the project's only schema is chosen, and the form warns with the reason
    page.goto(f"/projects/{project['project_id']}")
    heading(page, project["name"])
    page.get_by_role("button", name="New dataset").click()
    dialog = page.get_by_role("dialog", name="New dataset")
    expect(dialog.get_by_role("combobox", name="Schema", exact=True)).to_have_value(re.compile(r"\(unsatisfiable\)$"))
    warning = dialog.get_by_role("alert").filter(has_text="This schema cannot generate records")
    expect(warning).to_contain_text(problem)
    visit_check(page, "Dataset form unsatisfiable schema")
    # and the server refuses such a dataset, so the warning is not a false alarm
    r = rest.http.post("/datasets/create", headers=user.headers, json={
        "project_id": project["project_id"], "schema_id": bad["schema_id"], "name": unique("refused"),
        "record_count": 10, "types": ["json"]})
    assert r.status_code == 422, r.text


def test_satisfiable_schema_not_flagged(page: Page, rest: Rest) -> None:
    user = rest.create_user("Manager")
    ok = dict(UNSATISFIABLE, properties={"count": {"type": "integer", "minimum": 1, "maximum": 5}})
    ok["required"] = ["count"]
    name = unique("possible")
    good = rest.call("POST", "/schemas", user, 201, files={"file": (f"{name}.json", json.dumps(ok).encode())})
    assert good["satisfiable"] is True, good
    open_app(page, f"/library/schemas/{good['schema_id']}", user.username, user.password)
    heading(page, good["name"])
    expect(page.get_by_role("heading", name="Fields", exact=True)).to_be_visible()
    expect(page.get_by_text("Unsatisfiable", exact=False)).to_have_count(0)
    expect(page.get_by_text("No record can be generated")).to_have_count(0)
