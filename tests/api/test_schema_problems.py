"""Problems at upload, not at generation (issue 18): /repr lists every path the engine cannot generate
with the reason, and a dataset request whose root cannot be generated is a 422 naming the paths,
over HTTP with real tokens on both databases."""

from __future__ import annotations

import json

from tests.api_client import Api

UNSATISFIABLE = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["count", "mode"],
    "properties": {
        "count": {"type": "integer", "minimum": 10, "maximum": 5},
        "mode": {"type": "string", "enum": ["a", "b"], "minLength": 3},
        "note": {"type": "string"},
    },
}


async def test_problems_listed_in_repr_and_dataset_refused_at_once(api: Api) -> None:
    _, admin = await api.create_tenant()
    manager = await api.create_user(admin, "Manager")
    project = await api.create_project(manager, "Problems")
    schema = await api.call(
        "POST", "/schemas", manager, 201,
        files={"file": ("bad.json", json.dumps(UNSATISFIABLE).encode())}, data={"project_id": str(project["project_id"])},
    )
    uploaded = {p["path"]: p for p in schema["problems"]}  # the upload answer names them already
    assert uploaded["count"] == {"path": "count", "reason": "no integer lies between 10 and 5", "blocking": True}
    gql = await api.gql_data(
        "query($id: Int!) { schema(schema_id: $id) { problems } }", {"id": schema["schema_id"]}, manager
    )
    assert gql["schema"]["problems"] == schema["problems"]
    rep = await api.call("GET", f"/schemas/{schema['schema_id']}/repr", manager, 200)
    problems = {p["path"]: p for p in rep["problems"]}
    assert rep["problems"] == schema["problems"]
    assert problems["count"]["reason"] == "no integer lies between 10 and 5" and problems["count"]["blocking"]
    assert "enum" in problems["mode"]["reason"] and problems["mode"]["blocking"]
    assert "note" not in problems

    r = await api.request("POST", "/datasets/create", manager, json={
        "project_id": project["project_id"], "schema_id": schema["schema_id"], "name": "never",
        "record_count": 10, "types": ["json"],
    })
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert "count: no integer lies between 10 and 5" in detail and "mode:" in detail
    assert (await api.call("GET", "/datasets", manager, 200, params={"project_id": project["project_id"]})) == []


async def test_generatable_schema_has_no_problems(api: Api) -> None:
    _, admin = await api.create_tenant()
    manager = await api.create_user(admin, "Manager")
    ok = {**UNSATISFIABLE, "required": ["note"], "properties": {"note": {"type": "string"}}}
    schema = await api.call("POST", "/schemas", manager, 201, files={"file": ("ok.json", json.dumps(ok).encode())})
    assert schema["problems"] == []
    rep = await api.call("GET", f"/schemas/{schema['schema_id']}/repr", manager, 200)
    assert rep["problems"] == []


async def test_unsatisfiable_schema_flagged_in_detail_and_graphql(api: Api) -> None:
    """Issue 32 item 6: GET /schemas/{id} and the GraphQL Schema say whether a record can be
    generated (`satisfiable`) and why not (`problem`), from the probe run at upload."""
    _, admin = await api.create_tenant()
    manager = await api.create_user(admin, "Manager")
    bad = await api.call("POST", "/schemas", manager, 201, files={"file": ("bad.json", json.dumps(UNSATISFIABLE).encode())})
    assert bad["satisfiable"] is False  # the upload answer says it already
    detail = await api.call("GET", f"/schemas/{bad['schema_id']}", manager, 200)
    assert detail["satisfiable"] is False
    assert detail["problem"].startswith("No record can be generated: ")
    assert "count: no integer lies between 10 and 5" in detail["problem"] and "mode: " in detail["problem"]
    assert detail["problem"] == bad["problem"]
    gql = await api.gql_data(
        "query($id: Int!) { schema(schema_id: $id) { satisfiable problem } }", {"id": bad["schema_id"]}, manager
    )
    assert gql["schema"] == {"satisfiable": False, "problem": detail["problem"]}

    ok = {**UNSATISFIABLE, "required": ["note"], "properties": {"note": {"type": "string"}}}
    good = await api.call("POST", "/schemas", manager, 201, files={"file": ("ok.json", json.dumps(ok).encode())})
    detail = await api.call("GET", f"/schemas/{good['schema_id']}", manager, 200)
    assert (detail["satisfiable"], detail["problem"]) == (True, None)
    # an optional impossible field does not make the schema unsatisfiable: records leave it out
    optional = {**UNSATISFIABLE, "required": ["note"]}
    some = await api.call("POST", "/schemas", manager, 201, files={"file": ("opt.json", json.dumps(optional).encode())})
    assert some["problems"] and not any(p["blocking"] for p in some["problems"])
    detail = await api.call("GET", f"/schemas/{some['schema_id']}", manager, 200)
    assert (detail["satisfiable"], detail["problem"]) == (True, None)


async def test_rule_checks_on_update_too(api: Api) -> None:
    """Issue 32 item 6: a rule that would be ignored or cannot hold is refused when a constraint set
    is updated (PUT), as at creation, and the set keeps its rules."""
    _, admin = await api.create_tenant()
    manager = await api.create_user(admin, "Manager")
    schema_doc = {
        "type": "object", "required": ["status", "code"],
        "properties": {"status": {"enum": ["paid", "shipped"]}, "code": {"type": "string", "maxLength": 40}},
    }
    schema = await api.call("POST", "/schemas", manager, 201, files={"file": ("s.json", json.dumps(schema_doc).encode())})
    made = await api.call("POST", "/constraints", manager, 201, json={
        "name": "rules", "schema_id": schema["schema_id"], "rules": [{"path": "code", "pattern": "^[A-Z]{4}$"}],
    })
    cid = made["constraint_id"]
    for rules, said in (
        ([{"path": "status", "pattern": "^p"}], "'pattern' would be ignored"),
        ([{"path": "code", "pattern": "^[A-Z]{50}$"}], "cannot hold on this field"),
    ):
        r = await api.request("PUT", f"/constraints/{cid}", manager, json={"rules": rules})
        assert r.status_code == 422, r.text
        assert said in r.json()["detail"], r.text
    kept = await api.call("GET", f"/constraints/{cid}", manager, 200)
    assert kept["rules"] == [{"path": "code", "pattern": "^[A-Z]{4}$"}]
