"""Over HTTP (issue 17 items 4 and 6): `params.locale` and `params.locales` change the records a
preview (and so a dataset) holds; an unknown locale and a bad `after` rule are 422 with a sentence
naming what is wrong; a good `after` rule orders the records."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.api_client import Api
from tests.datasets.flow import upload_schema

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["first_name", "country", "currency", "kickoff", "wrapup", "address"],
    "properties": {
        "first_name": {"type": "string"},
        "country": {"type": "string", "pattern": "^[A-Z]{2}$"},
        "currency": {"type": "string", "pattern": "^[A-Z]{3}$"},
        "kickoff": {"type": "string", "format": "date"},
        "wrapup": {"type": "string", "format": "date"},
        "created_at": {"type": "string", "format": "date-time"},
        "address": {
            "type": "object",
            "required": ["city", "postcode"],
            "properties": {"city": {"type": "string"}, "postcode": {"type": "string"}},
        },
    },
}


async def _preview(api: Api, actor: Any, sid: int, status: int = 200, **body: Any) -> dict[str, Any]:
    return await api.call("POST", f"/schemas/{sid}/preview", actor, status, json={"count": 100, **body})


async def test_locale_params_change_the_records_and_bad_ones_are_422(api: Api) -> None:
    _, admin = await api.create_tenant()
    schema = await upload_schema(api, admin, json.dumps(SCHEMA).encode(), "people.json")
    sid = schema["schema_id"]
    german = json.loads((await _preview(api, admin, sid, params={"seed": 4, "locale": "de_DE"}))["content"])
    assert {(r["country"], r["currency"]) for r in german} == {("DE", "EUR")}
    assert all(re.fullmatch(r"[0-9]{5}", r["address"]["postcode"]) for r in german)
    american = json.loads((await _preview(api, admin, sid, params={"seed": 4}))["content"])
    assert {(r["country"], r["currency"]) for r in american} == {("US", "USD")}
    assert {r["first_name"] for r in german} != {r["first_name"] for r in american}
    mixed = json.loads(
        (await _preview(api, admin, sid, params={"seed": 4, "locales": ["en_US", "fr_FR"]}))["content"]
    )
    assert {(r["country"], r["currency"]) for r in mixed} == {("US", "USD"), ("FR", "EUR")}

    refused = await _preview(api, admin, sid, 422, params={"locale": "xx_YY"})
    assert refused["detail"].startswith("locale 'xx_YY' is not supported; use one such as en_US")
    refused = await _preview(api, admin, sid, 422, params={"locales": "de_DE"})
    assert refused["detail"].startswith("params.locales must be a list of 1 to 50 locales")


async def test_the_after_rule_orders_records_and_a_bad_one_is_422_naming_the_path(api: Api) -> None:
    _, admin = await api.create_tenant()
    schema = await upload_schema(api, admin, json.dumps(SCHEMA).encode(), "people.json")
    sid = schema["schema_id"]
    bad = [
        (
            {"path": "wrapup", "after": "kick_off"},
            "Rule for 'wrapup': 'after' names 'kick_off', but no field",
        ),
        ({"path": "wrapup", "after": "created_at"}, "Rule for 'wrapup': 'after' compares fields of one type"),
        ({"path": "address.city", "after": "kickoff"}, "Rule for 'address.city': 'after' must name a field"),
    ]
    for rule, start in bad:
        body = await api.call(
            "POST", "/constraints", admin, 422, json={"name": "r", "schema_id": sid, "rules": [rule]}
        )
        assert body["detail"].startswith(start), body
    rules = await api.call(
        "POST", "/constraints", admin, 201,
        json={"name": "ordered", "schema_id": sid, "rules": [{"path": "wrapup", "after": "kickoff"}]},
    )  # fmt: skip
    shown = await _preview(api, admin, sid, params={"seed": 9}, constraint_set_id=rules["constraint_id"])
    records = json.loads(shown["content"])
    assert len(records) == 100 and all(r["kickoff"] < r["wrapup"] for r in records)
