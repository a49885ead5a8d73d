"""Typed errors (issue 29 item 5): every refusal carries a stable `code` and, when it is about one
input, the `field` it concerns, the same in the REST body (`{"detail", "code", "field"}`) and in
GraphQL's `extensions` (code, field), so a client places an error by field and code, never by its
sentence. Each case below is asked over both doors."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.core.error_codes import ErrorCode
from app.generation import errors as generation_errors
from tests.api_client import USER_PASSWORD, Actor, Api
from tests.datasets.flow import ORDER_JSON, upload_schema

ROOT = Path(__file__).resolve().parents[2]


def rest_error(r: httpx.Response, status: int) -> dict[str, Any]:
    assert r.status_code == status, (r.request.method, str(r.request.url), r.status_code, r.text)
    body = r.json()
    assert isinstance(body["detail"], str) and body["detail"], body
    return body


def graphql_error(body: dict[str, Any], status: int) -> tuple[str, dict[str, Any]]:
    assert body.get("errors"), body
    error = body["errors"][0]
    assert error["extensions"]["status"] == status, error
    return error["message"], error["extensions"]


async def both(
    api: Api,
    actor: Actor | None,
    rest: tuple[str, str, dict[str, Any] | None],
    graphql: tuple[str, dict[str, Any]],
    status: int,
    code: str,
    field: str | None,
) -> None:
    """The REST row and the GraphQL operation refuse alike: same status, sentence, code, field."""
    method, path, body = rest
    answer = rest_error(await api.request(method, path, actor, json=body), status)
    message, extensions = graphql_error(await api.graphql(*graphql, actor), status)
    assert answer["code"] == extensions["code"] == code, (answer, extensions)
    assert answer.get("field") == extensions.get("field") == field, (answer, extensions)
    assert answer["detail"] == message


async def test_not_found_names_the_kind_of_row(api: Api) -> None:
    _, admin = await api.create_tenant()
    query = "query($id: Int!) { project(project_id: $id) { name } }"
    await both(api, admin, ("GET", "/projects/999999", None), (query, {"id": 999999}), 404,
               "project_not_found", None)
    schema = "query($id: Int!) { schema(schema_id: $id) { name } }"
    await both(api, admin, ("GET", "/schemas/999999", None), (schema, {"id": 999999}), 404,
               "schema_not_found", None)


async def test_validation_names_the_field(api: Api) -> None:
    _, admin = await api.create_tenant()
    project_id = (await api.create_project(admin, "Typed"))["project_id"]
    schema_id = (await upload_schema(api, admin, ORDER_JSON, "order.schema.json"))["schema_id"]
    create = "mutation($input: DatasetCreateInput!) { create_dataset(input: $input) { dataset_id } }"
    base = {"name": "ds", "project_id": project_id, "schema_id": schema_id, "record_count": 10}

    # the service's own checks
    for extra, code, field in (
        ({"schema_id": 999999}, "schema_not_found", "schema_id"),
        ({"params": {"seed": -1}}, "invalid_params", "params.seed"),
        ({"params": {"locale": "xx_XX"}}, "invalid_params", "params.locale"),
        ({"params": {"no_such": 1}}, "invalid_params", "params.no_such"),
        ({"types": ["pdf"]}, "unknown_format", "types"),
    ):
        body = {**base, **extra}
        status = 404 if code.endswith("_not_found") else 422
        await both(api, admin, ("POST", "/datasets/create", body), (create, {"input": body}), status, code, field)

    # pydantic's: a missing field is 400 `required`, a wrong value 422 `invalid_value`
    missing = {k: v for k, v in base.items() if k != "name"}
    r = rest_error(await api.request("POST", "/datasets/create", admin, json=missing), 400)
    assert (r["code"], r["field"]) == ("required", "name"), r
    wrong = {**base, "record_count": 0}
    await both(api, admin, ("POST", "/datasets/create", wrong), (create, {"input": wrong}), 422,
               "invalid_value", "record_count")

    # a rule names its index in the list and the key at fault
    rules = [{"path": "id", "null_rate": 0}, {"path": "email", "pattern": "(("}]
    constraint = {"name": "bad", "schema_id": schema_id, "rules": rules}
    mutation = "mutation($input: ConstraintSetCreateInput!) { create_constraint_set(input: $input) { constraint_id } }"
    await both(api, admin, ("POST", "/constraints", constraint), (mutation, {"input": constraint}), 422,
               "invalid_rule", "rules.1.pattern")
    nowhere = {**constraint, "rules": [{"path": "no.such.field"}]}
    await both(api, admin, ("POST", "/constraints", nowhere), (mutation, {"input": nowhere}), 422,
               "invalid_rule", "rules.0.path")


async def test_forbidden_and_conflict(api: Api) -> None:
    _, admin = await api.create_tenant()
    project_id = (await api.create_project(admin, "Typed"))["project_id"]
    tester = await api.create_user(admin, "Tester")
    await api.add_member(admin, project_id, tester.id, "view")
    delete = "mutation($id: Int!) { delete_project(project_id: $id) { deleted } }"
    await both(api, tester, ("DELETE", f"/projects/{project_id}", None), (delete, {"id": project_id}), 403,
               "role_forbidden", None)

    # a wrong password belongs to the password field, a taken address to the email field
    change = "mutation($input: EmailChangeInput!) { change_email(input: $input) { email } }"
    wrong = {"email": "new@example.com", "password": "not the password"}
    await both(api, tester, ("POST", "/settings/change_email", wrong), (change, {"input": wrong}), 403,
               "wrong_password", "password")
    other = await api.create_user(admin, "Tester")
    taken = {"email": "taken@example.com", "password": USER_PASSWORD}
    await api.call("POST", "/settings/change_email", other, 200, json=taken)
    await both(api, tester, ("POST", "/settings/change_email", taken), (change, {"input": taken}), 409,
               "email_taken", "email")

    user = {"username": tester.username, "password": USER_PASSWORD, "role": "Tester",
            "email": "someone@example.com"}
    create = "mutation($input: UserCreateInput!) { create_user(input: $input) { id } }"
    await both(api, admin, ("POST", "/users/create", user), (create, {"input": user}), 409,
               "username_taken", "username")


async def test_unauthenticated_and_unknown_paths_carry_codes(api: Api) -> None:
    r = rest_error(await api.request("GET", "/users/me"), 401)
    assert r["code"] == "unauthenticated" and "field" not in r
    r = rest_error(await api.request("GET", "/no/such/path"), 404)
    assert r["code"] == "path_not_found"
    r = rest_error(await api.request("GET", "/users/me", headers={"Authorization": "Bearer nonsense"}), 401)
    assert r["code"] in ("token_invalid", "token_expired"), r


def test_codes_are_snake_case_and_unique() -> None:
    values = [code.value for code in ErrorCode]
    assert len(values) == len(set(values))
    assert all(v.replace("_", "").isalnum() and v == v.lower() and not v.startswith("_") for v in values)


def test_the_engines_codes_are_listed() -> None:
    """app.generation cannot import the list; each of its error classes' codes must be in it."""
    classes = [c for c in vars(generation_errors).values()
               if isinstance(c, type) and issubclass(c, generation_errors.GenerationError)]
    assert len(classes) >= 6
    for cls in classes:
        assert cls.code in ErrorCode._value2member_map_, cls


def test_openapi_lists_every_code(api_openapi: dict[str, Any]) -> None:
    error = api_openapi["components"]["schemas"]["Error"]
    assert error["required"] == ["detail", "code"]
    assert set(error["properties"]["code"]["enum"]) == {c.value for c in ErrorCode}
    assert "field" in error["properties"]


@pytest.fixture
def api_openapi() -> dict[str, Any]:
    import json

    return dict(json.loads((ROOT / "docs" / "openapi.json").read_text()))


def _raised_codes() -> set[str]:
    """Every ErrorCode member named in app/ (ErrorCode.X)."""
    found: set[str] = set()
    for path in (ROOT / "app").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id == "ErrorCode"):
                found.add(node.attr)
    return found


def test_every_listed_code_is_used() -> None:
    """No dead entries: each code is raised somewhere (or is an engine class's code)."""
    engine = {c.code.upper() for c in vars(generation_errors).values()
              if isinstance(c, type) and issubclass(c, generation_errors.GenerationError)}
    unused = {c.name for c in ErrorCode} - _raised_codes() - engine - {"GRAPHQL_VALIDATION"}
    assert not unused, unused
