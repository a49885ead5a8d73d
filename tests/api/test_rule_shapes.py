"""Distribution, edge and uniqueness rule keys over HTTP (issue 17 items 2 and 5): a constraint
set with good keys is stored as sent; a bad one is a 422 whose detail names the rule's path,
on create and on update, through REST and GraphQL alike. Every rule key the server accepts is
listed and documented: the keys the rule validator names in its refusal of an unknown key are
exactly those GET /constraints/rule-keys and its GraphQL twin list and those of the OpenAPI
document's rule schema (docs/openapi.json and the served one); a value the document forbids for a
key is a 422 whose sentence names the key, and the document's own bounds are accepted."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from app.generation.params import PARAM_KEYS
from tests.api_client import Actor, Api

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


DOCS = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"
# probe values for every key: the document decides which it forbids
PROBES: list[Any] = [None, True, False, "", "x", "uniform", 0, 1, 2, -1, 0.5, -0.01, 1.01, 1e-9, [], [1], {}]
RULE_KEYS_QUERY = "{ constraint_rule_keys { name description required types schema } }"


async def _create(api: Api, actor: Actor, sid: int, rule: dict[str, Any]) -> Any:
    body = {"name": "keys", "schema_id": sid, "rules": [rule]}
    return await api.request("POST", "/constraints", actor, json=body)


def _rule_schemas(document: dict[str, Any]) -> list[dict[str, Any]]:
    schemas = document["components"]["schemas"]
    return [schemas[name]["properties"]["rules"] for name in ("ConstraintSetCreate", "ConstraintSetUpdate")]


def _items(rules: dict[str, Any]) -> dict[str, Any]:
    variants = rules.get("anyOf", [rules])
    items: dict[str, Any] = next(v for v in variants if v.get("type") == "array")["items"]
    return items


async def test_every_accepted_key_is_listed_and_documented(api: Api) -> None:
    _, admin = await api.create_tenant()
    sid = await _schema_id(api, admin)
    r = await _create(api, admin, sid, {"path": "height", "no_such_key": 1})
    assert r.status_code == 422, r.text
    found = re.search(r"\(allowed: ([^)]*)\)", r.json()["detail"])
    assert found, r.text
    accepted = set(found.group(1).split(", "))
    assert {"distribution", "mean", "sd", "edge_rate", "after", "unique"} <= accepted

    listed = await api.call("GET", "/constraints/rule-keys", admin, 200)
    assert {k["name"] for k in listed} == accepted
    assert all(k["description"] and "type" in k["schema"] for k in listed)
    assert [k["name"] for k in listed if k["required"]] == ["path"]
    data = await api.gql_data(RULE_KEYS_QUERY, actor=admin)
    assert data["constraint_rule_keys"] == listed

    served = (await api.request("GET", "/openapi.json")).json()
    committed = json.loads(DOCS.read_text())
    for document in (served, committed):
        for rules in _rule_schemas(document):
            items = _items(rules)
            assert set(items["properties"]) == accepted and items["additionalProperties"] is False
            assert items["required"] == ["path"]
            for key in listed:  # the endpoint and the document state the same value schema
                documented = items["properties"][key["name"]]
                assert {k: documented[k] for k in key["schema"]} == key["schema"], key["name"]
    assert _rule_schemas(served) == _rule_schemas(committed)


async def test_values_the_document_forbids_are_422_and_its_bounds_accepted(api: Api) -> None:
    _, admin = await api.create_tenant()
    sid = await _schema_id(api, admin)
    document = (await api.request("GET", "/openapi.json")).json()
    properties = _items(_rule_schemas(document)[0])["properties"]
    refused = 0
    for key, schema in properties.items():
        if key == "path":
            continue
        validator = Draft202012Validator({k: v for k, v in schema.items() if k != "description"})
        for value in PROBES:
            if validator.is_valid(value):
                continue
            r = await _create(api, admin, sid, {"path": "height", key: value})
            assert r.status_code == 422, (key, value, r.text)
            detail = r.json()["detail"]
            assert detail.startswith("Rule for 'height': ") and f"'{key}' must be" in detail, (key, value)
            refused += 1
    assert refused > 60
    # the documented bounds themselves are accepted on a field they fit
    fraction = properties["edge_rate"]
    sd_floor = properties["sd"]["exclusiveMinimum"]
    accepted = [
        {"path": "height", "edge_rate": fraction["minimum"]},
        {"path": "height", "edge_rate": fraction["maximum"]},
        {"path": "joined", "null_rate": properties["null_rate"]["maximum"]},
        {"path": "nickname", "min_length": properties["min_length"]["minimum"]},
        {"path": "height", "distribution": "normal", "mean": 170, "sd": sd_floor + 1e-9},
        *(  # normal and lognormal take mean and sd (normal needs them)
            {"path": "height", "distribution": d, **({"mean": 170, "sd": 9} if "normal" in d else {})}
            for d in properties["distribution"]["enum"]
        ),
        {"path": "nickname", "unique": False},
    ]
    for rule in accepted:
        r = await _create(api, admin, sid, rule)
        assert r.status_code == 201, (rule, r.text)


def test_dataset_params_name_every_param_key() -> None:
    """DatasetCreate.params is free-form JSON: its description names every key the engine takes."""
    committed = json.loads(DOCS.read_text())
    text = committed["components"]["schemas"]["DatasetCreate"]["properties"]["params"]["description"]
    assert not [key for key in PARAM_KEYS if not re.search(rf"\b{key}\b", text)], text
