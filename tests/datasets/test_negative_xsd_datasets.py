"""params.invalid_rate on an XSD schema's dataset (issue 30), over real HTTP on both databases:
40 records of the bench's customer_order.xsd as xml in two files at rate 0.25 say 10 records are
invalid; the labels file holds exactly 10 lines, each judged by xmlschema (the XSD loaded by
xmlschema itself) against the downloaded records, every other record valid; the preview says
which records are invalid and why; json for an XSD with invalid records is refused, at creation
and at download (the refusal names xml, the XSD's format)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import orjson
import xmlschema

from tests.api_client import Api
from tests.datasets.flow import ORDER_XSD, create_dataset, download, upload_schema, wait_for
from tests.generation.test_negative_xsd import check_labels
from tests.generation.test_negative_xsd_rules import KEYS as RULE_KEYS
from tests.generation.test_negative_xsd_rules import RULES
from tests.generation.test_negative_xsd_rules import XSD as RULES_XSD
from tests.generation.test_negative_xsd_rules import check as check_rules


async def test_xsd_dataset_labels_and_preview(api: Api) -> None:
    _, admin = await api.create_tenant()
    project = (await api.create_project(admin, "Negative XSD"))["project_id"]
    schema_id = (await upload_schema(api, admin, ORDER_XSD, "customer_order.xsd"))["schema_id"]
    reference = xmlschema.XMLSchema10(ORDER_XSD.decode())

    params = {"seed": 4, "invalid_rate": 0.25, "records_per_file": 20}
    made = await create_dataset(api, admin, project, schema_id, 40, types=["xml"], params=params)
    detail = await wait_for(api, admin, made["dataset_id"])
    assert detail["status"] == "completed", detail
    assert detail["invalid_records"] == 10

    records: list[ET.Element] = []
    for index in range(2):
        part = await download(api, admin, made["dataset_id"], "xml", index)
        assert part.status_code == 200, part.text
        records.extend(ET.fromstring(part.content))
    assert len(records) == 40
    got = await download(api, admin, made["dataset_id"], "labels")
    assert got.status_code == 200, got.text
    labels = [orjson.loads(line) for line in got.content.splitlines()]
    assert len(labels) == 10 and any(label["record"] >= 20 for label in labels)
    check_labels(reference, records, labels)
    # a format the dataset was not made in: refused naming the XSD's format (not json or ndjson)
    other = await download(api, admin, made["dataset_id"], "json")
    assert other.status_code == 422, other.text
    refusal = other.json()
    assert refusal["field"] == "format" and refusal["code"] == "invalid_params", refusal
    assert refusal["detail"].endswith("invalid records of this schema are written as xml."), refusal

    preview = await api.call("POST", f"/schemas/{schema_id}/preview", admin, 200, json={
        "count": 10, "format": "xml", "params": {"seed": 3, "invalid_rate": 0.5}})
    assert len(preview["labels"]) == 5
    check_labels(reference, list(ET.fromstring(preview["content"])), preview["labels"])

    body = await create_dataset(api, admin, project, schema_id, 20, 422, types=["json"],
                                params={"invalid_rate": 0.1})
    assert body.get("field") == "types" and "written as xml" in body["detail"], body


async def test_xsd_dataset_breaks_its_constraint_set(api: Api) -> None:
    """A dataset of an XSD with a constraint set: 10 of 20 records break a rule alone (the rule
    keys asked for), each labelled with the rule's index; every record XSD-valid, every other
    rule kept (test_negative_xsd_rules.check)."""
    _, admin = await api.create_tenant()
    project = (await api.create_project(admin, "Negative XSD rules"))["project_id"]
    schema_id = (await upload_schema(api, admin, RULES_XSD, "policy.xsd"))["schema_id"]
    constraint_id = (await api.call("POST", "/constraints", admin, 201, json={
        "name": "policy rules", "schema_id": schema_id, "rules": RULES}))["constraint_id"]
    params = {"seed": 9, "invalid_rate": 0.5, "invalid_keywords": RULE_KEYS}
    made = await create_dataset(api, admin, project, schema_id, 20, types=["xml"], params=params,
                                constraint_set_id=constraint_id)
    detail = await wait_for(api, admin, made["dataset_id"])
    assert detail["status"] == "completed" and detail["invalid_records"] == 10, detail
    records = list(ET.fromstring((await download(api, admin, made["dataset_id"], "xml")).content))
    labels = [orjson.loads(line) for line in (await download(api, admin, made["dataset_id"], "labels")).content.splitlines()]
    assert len(records) == 20 and len(labels) == 10 and all(label["rule"] is not None for label in labels)
    check_rules(records, labels)
