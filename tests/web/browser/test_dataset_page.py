"""The dataset page (issue 33 item 4): reached from the project's list, it shows status, seed
(exact, 63 bits), params, the constraint set and its recorded rules, timing, files with sizes and
checksums and a failure's reason; Generate again makes a dataset with the same seed; Copy as curl and
Copy as `tdg generate` put commands that reproduce it on the clipboard."""

from __future__ import annotations

import json
import re
from pathlib import Path

from playwright.sync_api import Page, expect

from tests.paths import BENCH
from tests.web.browser.helpers import PHONE, Rest, heading, open_app, unique, visit_check

SCHEMA = BENCH / "customer_order.schema.json"
SEED = 2**62 + 4321  # beyond a JavaScript number's exact integers
BROKEN = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "required": ["code"],
          "properties": {"code": {"type": "integer", "minimum": 1, "maximum": 5}}}


def clipboard(page: Page) -> str:
    return str(page.evaluate("() => navigator.clipboard.readText()"))


def test_dataset_page(page: Page, rest: Rest, tmp_path: Path) -> None:
    user = rest.create_user("Manager")
    project = rest.create_project(unique("Datasets page"), by=user)
    pid = project["project_id"]
    schema = rest.upload_schema(SCHEMA, by=user)
    rest.link_schema(pid, schema["schema_id"], by=user)
    rules = [{"path": "status", "enum": ["pending", "shipped"]}]
    made = rest.call("POST", "/constraints", user, 201, json={
        "name": "open orders", "schema_id": schema["schema_id"], "rules": rules})
    done = rest.create_dataset(pid, schema["schema_id"], 40, ["csv", "json"], by=user,
                               constraint_set_id=made["constraint_id"], params={"seed": SEED, "records_per_file": 25})
    broken_file = tmp_path / "broken.json"
    broken_file.write_text(json.dumps(BROKEN))
    broken = rest.upload_schema(broken_file, by=user)
    rest.link_schema(pid, broken["schema_id"], by=user)
    unique_codes = rest.call("POST", "/constraints", user, 201, json={
        "name": "unique codes", "schema_id": broken["schema_id"], "rules": [{"path": "code", "unique": True}]})
    failed = rest.create_dataset(pid, broken["schema_id"], 10, ["csv"], by=user,
                                 constraint_set_id=unique_codes["constraint_id"])
    finished = rest.wait_dataset(done["dataset_id"], by=user)
    assert finished["status"] == "completed"
    assert rest.wait_dataset(failed["dataset_id"], by=user)["status"] == "failed"

    # from the project's list to the page
    open_app(page, f"/projects/{pid}", user.username, user.password)
    heading(page, project["name"])
    page.get_by_role("table", name="Datasets").get_by_role("link", name=done["name"], exact=True).click()
    expect(page).to_have_url(re.compile(rf"/datasets/{done['dataset_id']}$"))
    heading(page, done["name"])
    status = page.get_by_role("region", name="Status", exact=True)
    expect(status.get_by_text("completed", exact=True)).to_be_visible()
    expect(status.get_by_text(re.compile(r"^Took \d"))).to_be_visible()
    inputs = page.get_by_role("region", name="Inputs", exact=True)
    expect(inputs.get_by_text(str(SEED), exact=True)).to_be_visible()
    expect(inputs.get_by_role("link", name="open orders")).to_be_visible()
    expect(page.get_by_role("region", name="Rules", exact=True)).to_contain_text('"shipped"')
    expect(page.get_by_role("region", name="Params", exact=True)).to_contain_text(f'"seed": {SEED}')
    # files: two CSV parts and two JSON parts (records_per_file 25), with their sizes and checksums
    files = page.get_by_role("table", name="Files")
    expect(files.get_by_role("row")).to_have_count(5)
    for f in finished["files"]:
        row = files.get_by_role("row").filter(has_text=f["sha256"])
        expect(row).to_have_count(1)
        expect(row).to_contain_text(f"{f['records']}")
    visit_check(page, "Dataset page")

    # the commands that make it again elsewhere
    page.get_by_role("button", name="Copy as curl").click()
    curl = clipboard(page)
    assert "/api/v1/datasets/create" in curl and f'"seed":{SEED}' in curl, curl
    assert f'"constraint_set_id":{made["constraint_id"]}' in curl, curl
    page.get_by_role("tab", name="tdg generate").click()
    page.get_by_role("button", name="Copy as tdg generate").click()
    command = clipboard(page)
    assert f"tdg generate customer_order.schema.json -n 40 -f csv --seed {SEED} --records-per-file 25 " \
           "--constraints constraints.json" in command, command
    assert '"pending"' in command and " -f json " in command, command

    # at phone width the files are entries, the page as wide as the screen
    page.set_viewport_size(PHONE)
    expect(page.get_by_role("list", name="Files").get_by_role("listitem")).to_have_count(4)
    # once the layout has settled at the new width (a frame or two after the resize)
    page.wait_for_function("() => document.documentElement.scrollWidth <= window.innerWidth", timeout=5000)

    # Generate again: a new dataset, same seed, its own page
    page.get_by_role("button", name="Generate again").click()
    heading(page, f"{done['name']} (again)")
    expect(page).not_to_have_url(re.compile(rf"/datasets/{done['dataset_id']}$"))
    expect(page.get_by_role("region", name="Inputs", exact=True).get_by_text(str(SEED), exact=True)).to_be_visible()
    expect(page.get_by_role("region", name="Status", exact=True).get_by_text("completed", exact=True)).to_be_visible(timeout=60_000)

    # a failed one says why
    page.goto(f"/datasets/{failed['dataset_id']}")
    heading(page, failed["name"])
    reason = page.get_by_role("region", name="Status", exact=True).get_by_text(re.compile("unique", re.I))
    expect(reason).to_be_visible()
    visit_check(page, "Dataset page failed")

    # one that does not exist
    page.goto("/datasets/999999999")
    heading(page, "Dataset not found")
