"""The published contracts (docs/schema.graphql, docs/openapi.json) equal what the app serves,
and the GraphQL endpoint enforces its depth/alias/token limits and introspection setting.

After an intended API change, regenerate both files with:

    .venv/bin/python -m tests.api.test_contracts --write
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx

from app.core.settings import Settings
from app.graphql.schema import build_schema
from app.main import _version
from app.rest.openapi import build_openapi
from app.rest.routes import ROUTES
from tests.api_client import Api

DOCS = Path(__file__).resolve().parents[2] / "docs"
SDL_FILE = DOCS / "schema.graphql"
OPENAPI_FILE = DOCS / "openapi.json"
REGENERATE = "Regenerate with: .venv/bin/python -m tests.api.test_contracts --write (and review the diff)."


def _settings(**over: Any) -> Settings:
    return Settings(**({"env": "test", "secret_key": "contract-secret-" + "x" * 32} | over))


def current_sdl() -> str:
    return build_schema(_settings()).as_str().rstrip("\n") + "\n"


def current_openapi() -> dict[str, Any]:
    schema = build_schema(_settings())
    return build_openapi(ROUTES, schema._schema, version=_version())


def write() -> None:
    DOCS.mkdir(exist_ok=True)
    SDL_FILE.write_text(current_sdl())
    OPENAPI_FILE.write_text(json.dumps(current_openapi(), indent=2, ensure_ascii=False) + "\n")


def test_graphql_sdl_matches_docs() -> None:
    assert SDL_FILE.exists(), f"{SDL_FILE} is missing. {REGENERATE}"
    assert current_sdl() == SDL_FILE.read_text(), f"The GraphQL schema differs from docs/schema.graphql. {REGENERATE}"


def test_openapi_matches_docs() -> None:
    assert OPENAPI_FILE.exists(), f"{OPENAPI_FILE} is missing. {REGENERATE}"
    committed = json.loads(OPENAPI_FILE.read_text())
    assert current_openapi() == committed, f"The OpenAPI document differs from docs/openapi.json. {REGENERATE}"


async def test_served_documents_are_the_committed_ones(client: httpx.AsyncClient) -> None:
    served = (await client.get("/api/v1/openapi.json")).json()
    assert served == json.loads(OPENAPI_FILE.read_text()), REGENERATE
    assert served["openapi"].startswith("3.1") and served["paths"]


def _chain(depth: int) -> str:
    """A selection `depth` fields deep. The limiter measures the document, whatever the fields are."""
    inner = "id"
    for _ in range(depth - 1):
        inner = f"me {{ {inner} }}"
    return f"{{ {inner} }}"


def _introspection(depth: int) -> str:
    inner = "name"
    for _ in range(depth):
        inner = f"fields {{ type {{ {inner} }} }}"
    return f'{{ __type(name: "Query") {{ {inner} }} }}'


async def test_depth_alias_and_token_limits(api: Api) -> None:
    _, admin = await api.create_tenant()
    limit = Settings.model_fields["graphql_max_depth"].default

    def depth_errors(body: dict[str, Any]) -> list[str]:
        return [e["message"] for e in body.get("errors", []) if "exceeds maximum operation depth" in e["message"]]

    assert depth_errors((await api.graphql_raw(_chain(20), actor=admin)).json())
    assert depth_errors((await api.graphql_raw(_chain(limit + 2), actor=admin)).json())
    # within the limit only the (invalid) field names are reported, not the depth
    within = (await api.graphql_raw(_chain(limit), actor=admin)).json()
    assert within["errors"] and not depth_errors(within)
    assert (await api.gql_data("{ me { projects { project_id } } }", actor=admin))["me"]["projects"] == []

    aliases = " ".join(f"a{i}: me {{ id }}" for i in range(31))
    r = await api.graphql_raw(f"{{ {aliases} }}", actor=admin)
    assert "aliases" in r.json()["errors"][0]["message"].lower(), r.text
    few = " ".join(f"a{i}: me {{ id }}" for i in range(5))
    assert (await api.gql_data(f"{{ {few} }}", actor=admin))["a4"]["id"] == admin.id

    tokens = " ".join(["id"] * 4100)
    r = await api.graphql_raw(f"{{ me {{ {tokens} }} }}", actor=admin)
    assert "token" in r.json()["errors"][0]["message"].lower(), r.text


async def test_deep_introspection_is_limited(api: Api) -> None:
    # strawberry's depth limiter skips '__' fields; graphql-core's introspection depth rule covers them
    assert (await api.gql_data(_introspection(2)))["__type"]["fields"]
    r = await api.graphql_raw(_introspection(15))
    assert "introspection depth" in r.json()["errors"][0]["message"], r.text


async def test_introspection_on_by_default(api: Api) -> None:
    body = await api.graphql("{ __schema { queryType { name } mutationType { name } } }")
    assert body["data"]["__schema"] == {"queryType": {"name": "Query"}, "mutationType": {"name": "Mutation"}}


async def test_introspection_off_in_production_or_by_setting() -> None:
    query = "{ __schema { queryType { name } } }"
    assert not (await build_schema(_settings()).execute(query)).errors
    for settings in (_settings(env="production"), _settings(graphql_introspection=False)):
        result = await build_schema(settings).execute(query)
        assert result.errors and "introspection" in result.errors[0].message.lower()


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.api.test_contracts --write")
    write()
    print(f"wrote {SDL_FILE} and {OPENAPI_FILE}")
