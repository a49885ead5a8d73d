"""Distribution, edge and uniqueness rule keys over HTTP (issue 17 items 2 and 5): a constraint
set with good keys is stored as sent; a bad one is a 422 whose detail names the rule's path,
on create and on update, through REST and GraphQL alike."""

from __future__ import annotations

import json
from typing import Any

from tests.api_client import Api

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["height", "visits", "status", "nickname", "email"],
    "properties": {
        "height": {"type": "number", "minimum": 100, "maximum": 250},
        "visits": {"type": "integer", "minimum": 1},
        "status": {"type": "string", "enum": ["new", "paid", "lost"]},
        "nickname": {"type": "string"},
        "email": {"type": "string", "format": "email"},
        "joined": {"type": "string", "format": "date"},
        "flag": {"type": "boolean"},
    },
}

GOOD: list[dict[str, Any]] = [
    {"path": "height", "distribution": "normal", "mean": 170, "sd": 10, "edge_rate": 0.05},
    {"path": "visits", "distribution": "skewed"},
    {"path": "status", "distribution": "skewed", "edge_rate": 0.1},
    {"path": "joined", "distribution": "uniform", "edge_rate": 0.02},
    {"path": "email", "unique": False},
]

BAD: list[tuple[dict[str, Any], str]] = [
    ({"path": "height", "distribution": "normal", "mean": 170}, "sd"),
    ({"path": "height", "distribution": "normal", "mean": 170, "sd": -1}, "sd"),
    ({"path": "height", "distribution": "normal", "mean": 300, "sd": 5}, "outside the allowed range"),
    ({"path": "height", "distribution": "bimodal"}, "distribution"),
    ({"path": "height", "edge_rate": 2}, "edge_rate"),
    ({"path": "height", "edge_rate": True}, "edge_rate"),
    ({"path": "nickname", "distribution": "skewed"}, "enum"),
    ({"path": "nickname", "distribution": "uniform"}, "without enum"),
    ({"path": "status", "distribution": "lognormal"}, "without enum"),
    ({"path": "flag", "distribution": "uniform"}, "boolean"),
    ({"path": "visits", "distribution": "skewed", "unique": True}, "unique"),
    ({"path": "email", "unique": "yes"}, "unique"),
]


async def _schema_id(api: Api, actor: Any) -> int:
    files = {"file": ("people.json", json.dumps(SCHEMA).encode())}
    r = await api.request("POST", "/schemas", actor, files=files)
    assert r.status_code == 201, r.text
    schema_id: int = r.json()["schema_id"]
    return schema_id


async def test_distribution_and_edge_rules_are_stored(api: Api) -> None:
    _, admin = await api.create_tenant()
    sid = await _schema_id(api, admin)
    r = await api.request(
        "POST", "/constraints", admin, json={"name": "shapes", "schema_id": sid, "rules": GOOD}
    )
    assert r.status_code == 201, r.text
    assert r.json()["rules"] == GOOD


async def test_bad_rule_keys_are_422_naming_the_path(api: Api) -> None:
    _, admin = await api.create_tenant()
    sid = await _schema_id(api, admin)
    for rule, named in BAD:
        body = {"name": "bad", "schema_id": sid, "rules": [rule]}
        r = await api.request("POST", "/constraints", admin, json=body)
        assert r.status_code == 422, (rule, r.text)
        detail = r.json()["detail"]
        assert f"Rule for '{rule['path']}'" in detail and named in detail, (rule, detail)
    cid = (
        await api.request(
            "POST", "/constraints", admin, json={"name": "ok", "schema_id": sid, "rules": GOOD[:1]}
        )
    ).json()["constraint_id"]
    r = await api.request("PUT", f"/constraints/{cid}", admin, json={"rules": [BAD[0][0]]})
    assert r.status_code == 422 and "'height'" in r.json()["detail"], r.text
    # the same refusal through GraphQL
    query = "mutation($input: ConstraintSetCreateInput!) { create_constraint_set(input: $input) { constraint_id } }"
    variables = {"input": {"name": "gql", "schema_id": sid, "rules": [BAD[4][0]]}}
    r = await api.graphql_raw(query, variables, admin)
    errors = r.json().get("errors") or []
    assert errors and "'height'" in errors[0]["message"] and "edge_rate" in errors[0]["message"], r.text
    assert errors[0]["extensions"]["code"], r.text
