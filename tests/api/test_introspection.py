"""GraphQL introspection answers whole: the standard query that GraphiQL, code generators and
schemathesis send succeeds over HTTP with a real token, and its result builds a client schema
that agrees with the committed SDL (docs/schema.graphql).

Every default value must print as a GraphQL literal: an input field or argument whose default
graphql-core cannot print (a JSON scalar defaulting to {}) made `defaultValue` an internal error."""

from __future__ import annotations

from typing import Any

import graphql
import pytest

from tests.api.mutation_scenarios import make_world
from tests.api.test_contracts import SDL_FILE
from tests.api_client import Actor, Api

# the richest standard query graphql-core writes (every optional part on)
FULL_QUERY = graphql.get_introspection_query(
    descriptions=True,
    specified_by_url=True,
    directive_is_repeatable=True,
    schema_description=True,
    input_value_deprecation=True,
)


async def _introspect(api: Api, actor: Actor | None, query: str = FULL_QUERY) -> dict[str, Any]:
    r = await api.graphql_raw(query, actor=actor)
    assert r.status_code == 200, r.text
    body = r.json()
    assert "errors" not in body, body["errors"]
    data: dict[str, Any] = body["data"]
    return data


def _defaults(data: dict[str, Any]) -> dict[str, str]:
    """Every printed default of the result: 'Type.field' or 'Type.field(arg)' -> literal."""
    found: dict[str, str] = {}
    for t in data["__schema"]["types"]:
        for f in t.get("inputFields") or []:
            if f["defaultValue"] is not None:
                found[f"{t['name']}.{f['name']}"] = f["defaultValue"]
        for field in t.get("fields") or []:
            for a in field["args"]:
                if a["defaultValue"] is not None:
                    found[f"{t['name']}.{field['name']}({a['name']})"] = a["defaultValue"]
    return found


@pytest.mark.parametrize("who", ["root", "tester"])
async def test_standard_introspection_query_succeeds(api: Api, who: str) -> None:
    actor = api.root
    if who == "tester":
        _, admin = await api.create_tenant()
        actor = await api.create_user(admin, "Tester")
    data = await _introspect(api, actor)

    # every default is a literal that parses back (build_client_schema reads them too)
    defaults = _defaults(data)
    for where, literal in defaults.items():
        try:
            graphql.parse_const_value(literal)
        except graphql.GraphQLError as exc:
            pytest.fail(f"{where}: default {literal!r} is not a GraphQL literal: {exc}")
    assert defaults["DatasetCreateInput.params"] == "null"
    assert defaults["ConstraintSetCreateInput.rules"] == "[]"

    client = graphql.build_client_schema(data)  # type: ignore[arg-type]
    assert graphql.validate_schema(client) == []
    # the introspected schema is the committed one: nothing breaking or dangerous between them
    committed = graphql.build_schema(SDL_FILE.read_text())
    assert graphql.find_breaking_changes(committed, client) == []
    assert graphql.find_dangerous_changes(committed, client) == []
    assert graphql.find_breaking_changes(client, committed) == []
    assert graphql.find_dangerous_changes(client, committed) == []


async def test_default_values_query_from_the_issue(api: Api) -> None:
    data = await _introspect(
        api, api.root, "{ __schema { types { name inputFields { name defaultValue } } } }"
    )
    fields = {t["name"]: t["inputFields"] for t in data["__schema"]["types"] if t["inputFields"]}
    assert {"name": "params", "defaultValue": "null"} in fields["DatasetCreateInput"]


async def test_dataset_params_null_or_absent_means_none(api: Api) -> None:
    """`params: JSON = null`: null and absent create a dataset with default params; an object is
    still validated (unknown keys are refused as before)."""
    w = await make_world(api)
    mutation = """mutation($input: DatasetCreateInput!) {
      create_dataset(input: $input) { dataset_id params } }"""
    base = {"name": "d", "project_id": w.project_id, "schema_id": w.schema_id, "record_count": 2}
    made = []
    for extra in ({}, {"params": None}, {"params": {"deferred": True, "seed": 7}}):
        data = await api.gql_data(mutation, {"input": base | extra}, actor=w.manager)
        made.append(data["create_dataset"]["params"])
    assert set(made[0]) == set(made[1]) == {"seed"}, made  # only the drawn seed
    assert made[2]["seed"] == 7, made
    for bad in ([], "x", {"no_such_param": 1}):
        body = await api.graphql(mutation, {"input": base | {"params": bad}}, actor=w.manager)
        assert body.get("errors") and not body.get("data"), body
