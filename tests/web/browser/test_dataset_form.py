"""The dataset form (issue 33 item 5, the parts whose service params have landed): a project's only
schema is picked already, coverage mode (params.coverage), the SQL dialect and the XML layout (shown
once SQL or XML is a format) reach the created dataset's params."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Page, expect

from tests.paths import BENCH
from tests.web.browser.helpers import Actor, Rest, heading, open_app, unique, visit_check


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
    expect(dialog.get_by_role("combobox", name="XML layout", exact=True)).to_have_count(0)
    dialog.get_by_role("checkbox", name="XML", exact=True).check()
    dialog.get_by_role("combobox", name="XML layout", exact=True).click()
    page.get_by_role("option", name="One document per record", exact=True).click()
    visit_check(page, "Dataset form coverage and dialect")
    dialog.get_by_role("button", name="Create dataset").click()
    expect(dialog).to_be_hidden()
    listed = rest.call("GET", f"/datasets?project_id={pid}", user)
    made = [d for d in (listed["items"] if isinstance(listed, dict) else listed) if d["name"] == name]
    assert len(made) == 1, made
    assert made[0]["params"]["coverage"] == "pairwise" and made[0]["params"]["sql_dialect"] == "mysql", made
    assert made[0]["params"]["xml_layout"] == "documents", made


def _graphql(rest: Rest, actor: Actor, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    r = rest.http.post(rest.server.url + "/graphql", headers=actor.headers, json={"query": query, "variables": variables})
    assert r.status_code == 200 and not r.json().get("errors"), r.text
    return dict(r.json()["data"])


def test_dataset_form_coverage_size_invalid_records_and_xml_layout(page: Page, rest: Rest) -> None:
    """Issue 33 item 5's rest: the coverage set's size shown before creating (the server's
    coverage_plan, following the mode), the invalid rate and keywords reaching params and the
    preview marking its invalid records; the server's refusals placed at the field its `field` names
    (coverage with invalid records at Invalid rate, invalid records in CSV/XML at Formats)."""
    user = rest.create_user("Manager")
    project = rest.create_project(unique("Form"), by=user)
    pid = project["project_id"]
    schema = rest.upload_schema(BENCH / "customer_order.schema.json", by=user)
    sid = schema["schema_id"]
    rest.link_schema(pid, sid, by=user)
    # the form sends its record count (params.record_count): the plan is of a dataset of that many records
    plans = {mode: rest.call("POST", f"/schemas/{sid}/coverage-plan", user,
                             json={"mode": mode, "params": {"seed": 7, "record_count": 2}})
             for mode in ("each", "pairwise")}
    assert plans["each"]["records"] != plans["pairwise"]["records"], plans  # so the switch shows

    open_app(page, f"/projects/{pid}", user.username, user.password)
    heading(page, project["name"])
    page.get_by_role("button", name="New dataset").click()
    dialog = page.get_by_role("dialog", name="New dataset")
    name = unique("negative")
    dialog.get_by_role("textbox", name="Name", exact=True).fill(name)
    dialog.get_by_role("textbox", name="Seed", exact=True).fill("7")
    dialog.get_by_role("textbox", name="Record count", exact=True).fill("2")

    # coverage: the set's size, before anything is created, and a count below it called out
    dialog.get_by_role("combobox", name="Coverage", exact=True).click()
    page.get_by_role("option", name=re.compile(r"^Each target")).click()
    size = dialog.get_by_role("status", name="Coverage set")
    for mode in ("each", "pairwise"):
        if mode == "pairwise":
            dialog.get_by_role("combobox", name="Coverage", exact=True).click()
            page.get_by_role("option", name=re.compile(r"^Pairwise")).click()
        plan = plans[mode]
        unreachable = sum(1 for t in plan["targets"] if t["record"] is None)
        expect(size).to_contain_text(f"The coverage set is {plan['records']:,} records, covering "
                                     f"{plan['covered']:,} of {plan['total']:,} targets")
        if unreachable:
            expect(size).to_contain_text(f"{unreachable:,} unreachable")
        expect(size).to_contain_text(f"Ask for at least {plan['records']:,} records")
    visit_check(page, "Dataset form coverage size")
    enough = plans["pairwise"]["records"] + 50
    planned = rest.call("POST", f"/schemas/{sid}/coverage-plan", user,
                        json={"mode": "pairwise", "params": {"seed": 7, "record_count": enough}})
    dialog.get_by_role("textbox", name="Record count", exact=True).fill(str(enough))
    expect(size).to_contain_text(f"The coverage set is {planned['records']:,} records, covering "
                                 f"{planned['covered']:,} of {planned['total']:,} targets")
    expect(size).to_contain_text(f"The {enough:,} records asked for start with it; the rest are random.")
    expect(size).not_to_contain_text("Ask for at least")
    # a coverage set is valid records: the server refuses both at once, at the invalid rate
    dialog.get_by_role("textbox", name="Invalid rate", exact=True).fill("0.3")
    dialog.get_by_role("button", name="Create dataset").click()
    refused = rest.call("POST", "/datasets/create", user, 422, json={
        "project_id": pid, "schema_id": sid, "name": name, "record_count": plans["pairwise"]["records"],
        "types": ["csv", "json"], "params": {"coverage": "pairwise", "invalid_rate": 0.3}})
    assert refused["field"] == "params.invalid_rate", refused
    expect(dialog.get_by_role("textbox", name="Invalid rate", exact=True)).to_have_accessible_description(
        re.compile("^" + re.escape(refused["detail"])))
    # choosing the chosen mode again deselects it (the clear button is for the pointer only)
    dialog.get_by_role("combobox", name="Coverage", exact=True).click()
    page.get_by_role("option", name=re.compile(r"^Pairwise")).click()
    expect(dialog.get_by_role("combobox", name="Coverage", exact=True)).to_have_value("")
    expect(dialog.get_by_role("status", name="Coverage set")).to_have_count(0)

    # invalid records: keywords offered once a rate is set; the preview marks the invalid rows
    keywords = dialog.get_by_role("combobox", name="Invalid keywords", exact=True)
    keywords.fill("maximum")
    keywords.press("Enter")
    dialog.get_by_role("textbox", name="Record count", exact=True).fill("40")
    dialog.get_by_role("button", name="Preview").click()
    wanted = _graphql(rest, user, """query($s: Int!, $p: JSON) { preview(schema_id: $s, params: $p, count: 10, format: "json")
        { labels { record keyword pointer detail } } }""",
        {"s": sid, "p": {"locale": "en_US", "seed": 7, "invalid_rate": 0.3, "invalid_keywords": ["maximum"]}})
    labels = wanted["preview"]["labels"]
    assert labels and all(lb["keyword"] == "maximum" for lb in labels), labels
    grid = dialog.get_by_role("table", name="Preview records")
    marked = grid.get_by_role("row").filter(has_text="Invalid record")
    expect(marked).to_have_count(len(labels))
    for lb in labels:
        row = grid.get_by_role("row").nth(lb["record"] + 1)
        expect(row.get_by_role("cell").first).to_have_accessible_name(
            f"{lb['record'] + 1} Invalid record, breaks maximum at {lb['pointer']}: {lb['detail']}")
    visit_check(page, "Dataset form invalid records preview")

    # with XML asked for, invalid records are refused: that refusal sits at Formats
    dialog.get_by_role("checkbox", name="XML", exact=True).check()
    dialog.get_by_role("button", name="Create dataset").click()
    expect(dialog.get_by_role("group", name="Formats")).to_have_accessible_description(
        re.compile(r"\bcsv\b.*\bxml\b"))  # the server names the formats
    dialog.get_by_role("checkbox", name="XML", exact=True).uncheck()
    dialog.get_by_role("checkbox", name="CSV", exact=True).uncheck()
    dialog.get_by_role("checkbox", name="NDJSON", exact=True).check()  # the formats come from the schema's enum
    dialog.get_by_role("button", name="Create dataset").click()
    expect(dialog).to_be_hidden()
    listed = rest.call("GET", f"/datasets?project_id={pid}", user)
    made = [d for d in (listed["items"] if isinstance(listed, dict) else listed) if d["name"] == name]
    assert len(made) == 1, made
    params = made[0]["params"]
    assert params["invalid_rate"] == 0.3 and params["invalid_keywords"] == ["maximum"], params
    assert "coverage" not in params, params
    assert made[0]["types"] == ["json", "ndjson"], made
