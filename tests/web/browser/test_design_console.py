"""Designing data in the browser (issue 33 items 1-3): the preview as a grid (dotted columns for
nested fields, their schema types in the headers, arrays opened in place, the text views beside it,
more than 100 records refused in words); the constraint editor's live preview of unsaved rules with
the server's 422 at the rule it names; the field's enum values offered, distribution, edge rate and
`after` controls, and the inferred category as a hint."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from tests.web.browser.helpers import Rest, heading, open_app, unique, visit_check

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["id", "email", "status", "start_date", "end_date", "address", "tags", "amount"],
    "properties": {
        "id": {"type": "integer", "minimum": 1, "maximum": 100000},
        "email": {"type": "string", "format": "email"},
        "status": {"type": "string", "enum": ["new", "open", "closed"]},
        "start_date": {"type": "string", "format": "date"},
        "end_date": {"type": "string", "format": "date"},
        "address": {"type": "object", "required": ["city"], "properties": {"city": {"type": "string", "maxLength": 30}}},
        "tags": {"type": "array", "minItems": 2, "maxItems": 3, "items": {"type": "string", "maxLength": 8}},
        "amount": {"type": "number", "minimum": 0, "maximum": 1000},
    },
}


def column(grid: Locator, name: str) -> list[str]:
    """The texts of one column of the preview grid's top-level rows."""
    return list(grid.evaluate("""(table, name) => {
        const heads = [...table.querySelectorAll(':scope > thead > tr > th')].map((th) => th.textContent);
        const at = heads.findIndex((h) => h.startsWith(name));
        return [...table.querySelectorAll(':scope > tbody > tr')]
            .filter((tr) => tr.children.length === heads.length)
            .map((tr) => tr.children[at].textContent);
    }""", name))


def wait_until(page: Page, check: Callable[[], bool], what: str, timeout_s: float = 15.0) -> None:
    """Poll a condition on the page (the preview answers after a debounce and a request)."""
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout_s:.0f} s: {what}")
        page.wait_for_timeout(200)


def pick(page: Page, field: Locator, option: str) -> None:
    field.click()
    page.get_by_role("option", name=option, exact=True).click()


def add_rule(page: Page, index: int, field: str) -> Locator:
    page.get_by_role("button", name="Add rule").click()
    box = page.get_by_role("combobox", name=f"Field for rule {index}", exact=True)
    box.click()
    box.fill(field)
    page.get_by_role("option", name=re.compile(rf"^{re.escape(field)}\b")).click()
    return page.get_by_role("listitem", name=f"Rule for {field}")


def test_grid_preview_and_live_rules(page: Page, rest: Rest, tmp_path: Path) -> None:
    user = rest.create_user("Manager")
    path = tmp_path / "tickets.schema.json"
    path.write_text(json.dumps(SCHEMA))
    schema = rest.upload_schema(path, by=user)
    sid = schema["schema_id"]

    # 1. the grid: dotted columns with their types, an array opened in place
    open_app(page, f"/library/schemas/{sid}", user.username, user.password)
    heading(page, schema["name"])
    grid = page.get_by_role("table", name="Preview records", exact=True)
    expect(grid.get_by_role("row")).to_have_count(11)
    expect(grid.get_by_role("columnheader", name="address.city string")).to_be_visible()
    expect(grid.get_by_role("columnheader", name="id integer")).to_be_visible()
    expect(grid.get_by_role("columnheader", name="start_date date")).to_be_visible()
    tags = grid.get_by_role("button", name=re.compile(r"^record 1 tags: [23] items$"))
    tags.click()
    expect(tags).to_have_attribute("aria-expanded", "true")
    items = page.get_by_role("table", name="tags of record 1", exact=True)
    expect(items.get_by_role("row")).to_have_count(int(tags.inner_text()[0]) + 1)
    visit_check(page, "Preview grid")
    tags.click()
    expect(items).to_have_count(0)
    # over 100 asked for: said so, the last records stay
    page.get_by_role("textbox", name="Records", exact=True).fill("150")
    expect(page.get_by_role("status").filter(has_text="At most 100 records in a preview")).to_be_visible()
    expect(grid.get_by_role("row")).to_have_count(11)
    page.get_by_role("textbox", name="Records", exact=True).fill("3")
    expect(grid.get_by_role("row")).to_have_count(4)
    # the text views beside it
    page.get_by_role("radio", name="CSV", exact=True).check()
    expect(page.get_by_label("Preview content (CSV)")).to_contain_text("address.city")

    # 2-3. the constraint editor: unsaved rules apply, enum values offered, hints, ordering
    page.goto(f"/library/constraints/new?schema_id={sid}")
    heading(page, "New constraint set")
    page.get_by_role("textbox", name="Name", exact=True).fill(unique("live"))
    grid = page.get_by_role("table", name="Preview records", exact=True)
    expect(grid.get_by_role("row")).to_have_count(11)
    status = add_rule(page, 1, "status")
    values = status.get_by_label("Values for status", exact=True)
    values.click()
    for offered in ("new", "open", "closed"):
        expect(page.get_by_role("option", name=offered, exact=True)).to_be_visible()
    page.get_by_role("option", name="closed", exact=True).click()
    page.keyboard.press("Escape")
    wait_until(page, lambda: set(column(grid, "status")) == {"closed"}, "every status closed")

    email = add_rule(page, 2, "email")
    expect(email.get_by_text("Inferred: email", exact=True)).to_be_visible()

    end = add_rule(page, 3, "end_date")
    pick(page, end.get_by_role("combobox", name="After for end_date", exact=True), "start_date")
    amount = add_rule(page, 4, "amount")
    pick(page, amount.get_by_role("combobox", name="Distribution for amount", exact=True), "Normal (mean, SD)")
    amount.get_by_role("textbox", name="Mean for amount", exact=True).fill("500")
    amount.get_by_role("textbox", name="Standard deviation for amount", exact=True).fill("20")
    amount.get_by_role("textbox", name="Edge rate for amount", exact=True).fill("0")

    def ordered() -> bool:
        starts, ends = column(grid, "start_date"), column(grid, "end_date")
        amounts = [float(a) for a in column(grid, "amount")]
        return len(starts) == 10 and all(e > s for s, e in zip(starts, ends, strict=True)) \
            and all(380 <= a <= 620 for a in amounts)

    wait_until(page, ordered, "end_date after start_date, amounts near 500")
    visit_check(page, "Constraint editor live preview")

    # a rule the server refuses: its sentence at that rule, the preview pointing there
    amount.get_by_role("textbox", name="Minimum for amount", exact=True).fill("900")
    amount.get_by_role("textbox", name="Maximum for amount", exact=True).fill("100")
    expect(amount.get_by_role("alert")).to_contain_text("amount")
    expect(page.get_by_role("alert").filter(has_text="A rule needs fixing")).to_be_visible()
    amount.get_by_role("textbox", name="Minimum for amount", exact=True).fill("")
    amount.get_by_role("textbox", name="Maximum for amount", exact=True).fill("")
    expect(amount.get_by_role("alert")).to_have_count(0)
    expect(grid.get_by_role("row")).to_have_count(11)

    # saved as shown
    page.get_by_role("button", name="Save constraint set").click()
    expect(page).to_have_url(re.compile(r"/library/constraints/\d+$"))
    saved = rest.call("GET", f"/constraints/{page.url.rsplit('/', 1)[1]}", user)
    by_path = {r["path"]: r for r in saved["rules"]}
    assert by_path["status"]["enum"] == ["closed"]
    assert by_path["end_date"]["after"] == "start_date"
    assert (by_path["amount"]["distribution"], by_path["amount"]["mean"], by_path["amount"]["sd"]) == ("normal", 500, 20)
