"""A small client for tests: talks to the app over HTTP like a CI pipeline would."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import httpx

BASE = "/api/v1"


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


class Api:
    def __init__(self, client: httpx.AsyncClient) -> None:
        self.client = client
        self.root: Actor | None = None

    async def request(self, method: str, path: str, actor: Actor | None = None, **kwargs: Any) -> httpx.Response:
        headers = dict(kwargs.pop("headers", {}) or {})
        if actor is not None:
            headers.update(actor.headers)
        return await self.client.request(method, BASE + path, headers=headers, **kwargs)

    async def graphql(self, query: str, variables: dict[str, Any] | None = None, actor: Actor | None = None) -> dict[str, Any]:
        headers = actor.headers if actor else {}
        r = await self.client.post("/graphql", json={"query": query, "variables": variables or {}}, headers=headers)
        assert r.status_code == 200, r.text
        return r.json()

    async def login(self, username: str, password: str) -> Actor:
        r = await self.client.post(BASE + "/users/token", data={"username": username, "password": password})
        assert r.status_code == 200, r.text
        token = r.json()["access_token"]
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
        suffix = uuid.uuid4().hex[:6]
        name = name or f"tenant-{suffix}"
        body = {"name": name, "admin_username": f"admin_{suffix}", "admin_email": f"admin_{suffix}@example.com",
                "admin_password": "admin-password-1"}
        r = await self.request("POST", "/tenants", self.root, json=body)
        assert r.status_code == 201, r.text
        admin = await self.login(body["admin_username"], body["admin_password"])
        return r.json()["tenant_id"], admin

    async def create_user(self, by: Actor, role: str, username: str | None = None) -> Actor:
        username = username or f"{role.lower()}_{uuid.uuid4().hex[:6]}"
        password = "user-password-1"
        r = await self.request("POST", "/users/create", by, json={
            "username": username, "password": password, "role": role, "email": f"{username}@example.com"})
        assert r.status_code == 201, r.text
        return await self.login(username, password)

    async def create_project(self, by: Actor, name: str = "Project", **extra: Any) -> dict[str, Any]:
        r = await self.request("POST", "/projects/create", by, json={"name": name, "description": "test", **extra})
        assert r.status_code == 201, r.text
        return r.json()
