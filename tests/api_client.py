"""A small client for tests: talks to the app over HTTP like a CI pipeline would."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import httpx

BASE = "/api/v1"
USER_PASSWORD = "user-password-1"
TENANT_ADMIN_PASSWORD = "admin-password-1"


@dataclass
class Actor:
    """A logged-in user: id, username, password and bearer headers."""

    id: int
    username: str
    password: str
    token: str
    tenant_id: int

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:6]}"


class Api:
    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.root: Actor | None = None

    async def request(self, method: str, path: str, actor: Actor | None = None, **kwargs: Any) -> httpx.Response:
        headers = dict(kwargs.pop("headers", {}) or {})
        if actor is not None:
            headers.update(actor.headers)
        return await self.client.request(method, BASE + path, headers=headers, **kwargs)

    async def call(self, method: str, path: str, actor: Actor | None, status: int, **kwargs: Any) -> Any:
        """Send a request, assert its status (showing the body when it differs) and return the JSON body."""
        r = await self.request(method, path, actor, **kwargs)
        assert r.status_code == status, f"{method} {path}: expected {status}, got {r.status_code}: {r.text}"
        body = r.json()
        if status >= 400:
            assert isinstance(body.get("detail"), str) and body["detail"], body
        return body

    async def graphql_raw(self, query: str, variables: dict[str, Any] | None = None,
                          actor: Actor | None = None) -> httpx.Response:
        headers = actor.headers if actor else {}
        return await self.client.post("/graphql", json={"query": query, "variables": variables or {}}, headers=headers)

    async def graphql(self, query: str, variables: dict[str, Any] | None = None, actor: Actor | None = None) -> dict[str, Any]:
        r = await self.graphql_raw(query, variables, actor)
        assert r.status_code == 200, r.text
        return r.json()

    async def gql_data(self, query: str, variables: dict[str, Any] | None = None,
                       actor: Actor | None = None) -> dict[str, Any]:
        """The `data` of a GraphQL operation that must succeed."""
        body = await self.graphql(query, variables, actor)
        assert not body.get("errors"), body
        return body["data"]

    async def token(self, username: str, password: str) -> str:
        r = await self.client.post(BASE + "/users/token", data={"username": username, "password": password})
        assert r.status_code == 200, r.text
        return r.json()["access_token"]

    async def login(self, username: str, password: str) -> Actor:
        token = await self.token(username, password)
        me = await self.client.get(BASE + "/users/me", headers={"Authorization": f"Bearer {token}"})
        assert me.status_code == 200, me.text
        body = me.json()
        return Actor(body["id"], username, password, token, body["tenant_id"])

    async def login_as_root(self, password: str) -> Actor:
        self.root = await self.login("root", password)
        return self.root

    async def create_tenant(self, name: str | None = None) -> tuple[int, Actor]:
        """SuperUser creates a tenant with its first Admin; returns (tenant_id, logged-in admin)."""
        assert self.root is not None
        admin_name = unique("admin")
        name = name or unique("tenant")
        body = {"name": name, "admin_username": admin_name, "admin_email": f"{admin_name}@example.com",
                "admin_password": TENANT_ADMIN_PASSWORD}
        r = await self.request("POST", "/tenants", self.root, json=body)
        assert r.status_code == 201, r.text
        admin = await self.login(body["admin_username"], body["admin_password"])
        return r.json()["tenant_id"], admin

    async def create_user(self, by: Actor, role: str, username: str | None = None, **extra: Any) -> Actor:
        username = username or unique(role.lower())
        r = await self.request("POST", "/users/create", by, json={
            "username": username, "password": USER_PASSWORD, "role": role, "email": f"{username}@example.com",
            **extra})
        assert r.status_code == 201, r.text
        return await self.login(username, USER_PASSWORD)

    async def create_project(self, by: Actor, name: str = "Project", **extra: Any) -> dict[str, Any]:
        r = await self.request("POST", "/projects/create", by, json={"name": name, "description": "test", **extra})
        assert r.status_code == 201, r.text
        return r.json()

    async def add_member(self, by: Actor, project_id: int, user_id: int, role: str = "view") -> dict[str, Any]:
        return await self.call("POST", f"/projects/{project_id}/add-user", by, 200,
                               json={"user_id": user_id, "role": role})
