"""Requests the /graphql door cannot read (a body that is not JSON, not UTF-8 or not an object,
another content type, no query, another method) are answered as GraphQL responses: a 4xx with
`{"errors": [{"message": <sentence>, "extensions": {"code", "status", ...}}]}`, as every other
error of the door, never plain text without a code and never a 500."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api_client import Api

JSON = {"Content-Type": "application/json"}
UNREADABLE: list[tuple[str, dict[str, Any], str]] = [
    ("not JSON", {"content": b'{"query": ', "headers": JSON}, "Unable to parse request body as JSON"),
    ("invalid UTF-8", {"content": b'{"query": "{ me { id } }\xff"}', "headers": JSON}, "not valid UTF-8 (byte 24)"),
    ("a lone surrogate's bytes", {"content": b'{"query": "\xed\xa0\x80"}', "headers": JSON}, "not valid UTF-8"),
    ("UTF-16", {"content": '{"query": "{ me { id } }"}'.encode("utf-16"), "headers": JSON}, "not valid UTF-8"),
    ("a JSON number", {"content": b"12", "headers": JSON}, "must be a JSON object"),
    ("a JSON string", {"content": b'"{ me { id } }"', "headers": JSON}, "must be a JSON object"),
    ("a batch", {"content": b'[{"query": "{ me { id } }"}]', "headers": JSON}, "Batching is not enabled"),
    ("another content type", {"content": b"{ me { id } }", "headers": {"Content-Type": "text/plain"}},
     "Unsupported content type: send the operation as application/json"),
    ("no content type", {"content": b'{"query": "{ me { id } }"}'}, "Unsupported content type"),
    ("no query", {"json": {"variables": {}}}, "No GraphQL query found in the request"),
    ("a null query", {"json": {"query": None}}, "No GraphQL query found in the request"),
    ("a query that is not text", {"json": {"query": 5}}, "`query` must be a string"),
    ("variables that are not an object", {"json": {"query": "{ me { id } }", "variables": [1]}},
     "`variables` must be an object"),
]


@pytest.mark.parametrize(("what", "request_kwargs", "sentence"), UNREADABLE, ids=[u[0] for u in UNREADABLE])
async def test_an_unreadable_request_is_a_graphql_error(
    api: Api, what: str, request_kwargs: dict[str, Any], sentence: str
) -> None:
    assert api.root is not None
    sent = dict(request_kwargs)  # (shared by the database parameters: not popped from)
    headers = {**api.root.headers, **sent.pop("headers", {})}
    r = await api.client.post("/graphql", headers=headers, **sent)
    assert r.status_code == 400, (what, r.status_code, r.text)
    assert r.headers["content-type"] == "application/json"
    (error,) = r.json()["errors"]
    assert sentence in error["message"], (what, error)
    assert error["extensions"] == {"code": "bad_request", "status": 400, "classification": "BAD_REQUEST"}


async def test_a_get_without_a_query_and_another_method(api: Api) -> None:
    r = await api.client.get("/graphql", headers={"Accept": "application/json"})
    assert r.status_code == 400 and r.json()["errors"][0]["extensions"]["code"] == "bad_request", r.text
    r = await api.client.put("/graphql", json={"query": "{ me { id } }"})
    assert r.status_code == 405 and r.headers["Allow"] == "GET, POST", r.text
    assert r.json()["errors"][0]["extensions"]["code"] == "method_not_allowed"
    # a document that does not parse has the code of every document error
    for sent in (api.client.post("/graphql", json={"query": "{ me { "}),
                 api.client.get("/graphql", params={"query": "\u00ff{"}, headers={"Accept": "application/json"})):
        r = await sent
        (error,) = r.json()["errors"]
        assert error["message"].startswith("Syntax Error") and error["extensions"]["code"] == "graphql_validation"
    # and a readable request is still answered as before
    assert api.root is not None
    r = await api.client.post("/graphql", json={"query": "{ me { username } }"}, headers=api.root.headers)
    assert r.status_code == 200 and r.json() == {"data": {"me": {"username": "root"}}}, r.text
