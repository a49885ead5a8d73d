"""Authentication over HTTP: login, every kind of bad token, revocation, deactivation, throttling,
API tokens and invitations (DESIGN §3, §12)."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import time_machine
from jose import jwt
from sqlalchemy import text

from app.core.database import make_sync_engine
from app.core.settings import Settings
from app.main import create_app
from tests.api_client import BASE, USER_PASSWORD, Actor, Api, unique
from tests.conftest import ADMIN_PASSWORD

BAD_CREDENTIALS = "Incorrect username or password."


def _claims(actor: Actor, **override: Any) -> dict[str, Any]:
    now = datetime.now(UTC)
    claims: dict[str, Any] = {"sub": str(actor.id), "tid": actor.tenant_id, "role": "Tester",
                              "jti": uuid.uuid4().hex, "iat": int(now.timestamp()),
                              "exp": int((now + timedelta(hours=1)).timestamp())}
    claims.update(override)
    return {k: v for k, v in claims.items() if v is not None}


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


async def _status_of_token(client: httpx.AsyncClient, token: str) -> tuple[int, str]:
    r = await client.get(BASE + "/users/me", headers={"Authorization": f"Bearer {token}"})
    return r.status_code, r.json().get("detail", "")


async def test_login_form_and_credentials(api: Api) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    r = await api.client.post(BASE + "/users/token", data={"username": tester.username, "password": USER_PASSWORD})
    assert r.status_code == 200
    body = r.json()
    assert body["token_type"] == "bearer" and body["access_token"].count(".") == 2
    assert body["expires_in"] == 24 * 3600

    r = await api.client.post(BASE + "/users/token", json={"username": tester.username, "password": USER_PASSWORD})
    assert r.status_code == 415 and "form" in r.json()["detail"]
    for partial in ({"username": tester.username}, {"password": USER_PASSWORD}):
        r = await api.client.post(BASE + "/users/token", data=partial)
        assert r.status_code == 400, r.text
        assert "Missing required field" in r.json()["detail"]

    wrong = await api.client.post(BASE + "/users/token", data={"username": tester.username, "password": "nope-nope"})
    unknown = await api.client.post(BASE + "/users/token", data={"username": "nobody_here", "password": "nope-nope"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json()["detail"] == unknown.json()["detail"] == BAD_CREDENTIALS
    assert wrong.headers["WWW-Authenticate"] == "Bearer"

    # failed logins are audited although the request failed
    rows = (await api.request("GET", "/audit/logs", admin, params={"action": "auth.login"})).json()
    failed = [r for r in rows if not r["success"]]
    assert [r["actor_username"] for r in failed] == [tester.username]


async def test_bad_tokens_are_refused(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    secret = settings.signing_key()
    client = api.client

    # a token crafted with the real secret and every claim works: the refusals below are about the flaw
    good = jwt.encode(_claims(tester), secret, algorithm="HS256")
    assert await _status_of_token(client, good) == (200, "")

    r = await client.get(BASE + "/users/me")
    assert r.status_code == 401 and "Authorization" in r.json()["detail"]
    for header in ("Basic dXNlcjpwYXNz", "Bearer", "Bearer   "):
        r = await client.get(BASE + "/users/me", headers={"Authorization": header})
        assert r.status_code == 401 and r.json()["detail"], header

    header, payload, signature = tester.token.split(".")
    forged_payload = _b64(jwt.get_unverified_claims(tester.token) | {"role": "SuperUser", "sub": str(admin.id)})
    flipped = signature[:-2] + ("AA" if signature[-2:] != "AA" else "BB")
    cases = {
        "garbage": "not-a-token",
        "three garbage parts": "a.b.c",
        "tampered payload": f"{header}.{forged_payload}.{signature}",
        "tampered signature": f"{header}.{payload}.{flipped}",
        "alg none": f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64(_claims(tester, role='SuperUser'))}.",
        "HS512": jwt.encode(_claims(tester), secret, algorithm="HS512"),
        "HS384": jwt.encode(_claims(tester), secret, algorithm="HS384"),
        "other secret": jwt.encode(_claims(tester), "another-secret-" + "y" * 32, algorithm="HS256"),
        "no exp": jwt.encode(_claims(tester, exp=None), secret, algorithm="HS256"),
        "no jti": jwt.encode(_claims(tester, jti=None), secret, algorithm="HS256"),
        "no sub": jwt.encode(_claims(tester, sub=None), secret, algorithm="HS256"),
        "no iat": jwt.encode(_claims(tester, iat=None), secret, algorithm="HS256"),
        "non-numeric sub": jwt.encode(_claims(tester, sub="abc"), secret, algorithm="HS256"),
        "unknown user": jwt.encode(_claims(tester, sub="999999"), secret, algorithm="HS256"),
        "unknown api token": "tdg_" + "x" * 43,
    }
    for name, token in cases.items():
        status, detail = await _status_of_token(client, token)
        assert status == 401 and detail, (name, status, detail)
        # GraphQL refuses the same token with the same status
        body = await api.graphql("{ me { id } }", actor=Actor(0, "", "", token, 0))
        assert body["errors"][0]["extensions"]["status"] == 401, (name, body)

    past = datetime.now(UTC) - timedelta(hours=2)
    expired = jwt.encode(_claims(tester, iat=int(past.timestamp()), exp=int((past + timedelta(hours=1)).timestamp())),
                         secret, algorithm="HS256")
    assert await _status_of_token(client, expired) == (401, "The access token has expired.")


async def test_logout_deactivation_and_role_change_apply_at_once(api: Api) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    second_token = await api.token(tester.username, USER_PASSWORD)

    # logout revokes exactly the token it was called with
    r = await api.request("GET", "/users/logout", tester)
    assert r.status_code == 200 and r.json()["ok"] is True
    status, detail = await _status_of_token(api.client, tester.token)
    assert status == 401 and "revoked" in detail
    assert (await _status_of_token(api.client, second_token))[0] == 200

    # a role change is read from the database on the next request (the token still says Tester)
    await api.call("GET", "/users", Actor(tester.id, "", "", second_token, tester.tenant_id), 403)
    await api.call("PATCH", f"/users/{tester.id}", admin, 200, json={"role": "Manager"})
    me = await api.call("GET", "/users/me", Actor(tester.id, "", "", second_token, tester.tenant_id), 200)
    assert me["role"] == "Manager"
    await api.call("GET", "/users", Actor(tester.id, "", "", second_token, tester.tenant_id), 200)
    assert jwt.get_unverified_claims(second_token)["role"] == "Tester"

    # deactivation stops the existing token (and an API token) at once; login is refused too
    holder = Actor(tester.id, tester.username, USER_PASSWORD, second_token, tester.tenant_id)
    api_token = (await api.call("POST", "/settings/tokens", holder, 201, json={"name": "ci"}))["token"]
    await api.call("PATCH", f"/users/{tester.id}", admin, 200, json={"is_active": False})
    status, detail = await _status_of_token(api.client, second_token)
    assert status == 401 and "inactive" in detail
    assert (await _status_of_token(api.client, api_token))[0] == 401
    r = await api.client.post(BASE + "/users/token", data={"username": tester.username, "password": USER_PASSWORD})
    assert r.status_code == 401 and r.json()["detail"] == BAD_CREDENTIALS

    # reactivation restores access
    await api.call("PATCH", f"/users/{tester.id}", admin, 200, json={"is_active": True})
    assert (await _status_of_token(api.client, second_token))[0] == 200

    # a deactivated tenant locks its users out
    assert api.root is not None
    await api.call("PUT", f"/tenants/{admin.tenant_id}", api.root, 200, json={"is_active": False})
    status, detail = await _status_of_token(api.client, admin.token)
    assert status == 401 and "tenant" in detail


async def test_login_throttling(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    limit = settings.login_max_failures
    for _ in range(limit):
        r = await api.client.post(BASE + "/users/token", data={"username": tester.username, "password": "wrong-pass"})
        assert r.status_code == 401
    for password in ("wrong-pass", USER_PASSWORD):
        r = await api.client.post(BASE + "/users/token", data={"username": tester.username, "password": password})
        assert r.status_code == 429, r.text
        retry_after = int(r.headers["Retry-After"])
        assert 0 < retry_after <= settings.login_lockout_seconds + 1
        assert str(retry_after) in r.json()["detail"]
    # the lock is per username: someone else still logs in from the same address
    await api.login(admin.username, admin.password)
    # GraphQL login hits the same lock
    body = await api.graphql("mutation($u: String!, $p: String!) { login(username: $u, password: $p) { access_token } }",
                             {"u": tester.username, "p": USER_PASSWORD})
    assert body["errors"][0]["extensions"]["status"] == 429


async def test_api_tokens(api: Api) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    created = await api.call("POST", "/settings/tokens", tester, 201, json={"name": "pipeline"})
    secret = created["token"]
    assert secret.startswith("tdg_") and len(secret) >= 40 and created["prefix"] == secret[:8]
    assert created["name"] == "pipeline" and created["last_used_at"] is None and created["expires_at"] is None

    listed = await api.call("GET", "/settings/tokens", tester, 200)
    assert [t["token_id"] for t in listed] == [created["token_id"]]
    assert "token" not in listed[0] and secret not in json.dumps(listed) and listed[0]["last_used_at"] is None
    # the secret is not retrievable over GraphQL either
    body = await api.graphql("{ api_tokens { token } }", actor=tester)
    assert body["errors"] and "token" in body["errors"][0]["message"]

    as_token = Actor(tester.id, tester.username, "", secret, tester.tenant_id)
    me = await api.call("GET", "/users/me", as_token, 200)
    assert me["id"] == tester.id
    listed = await api.call("GET", "/settings/tokens", tester, 200)
    assert listed[0]["last_used_at"] is not None
    # tokens are private to their owner
    await api.call("DELETE", f"/settings/tokens/{created['token_id']}", admin, 404)
    assert await api.call("GET", "/settings/tokens", admin, 200) == []

    # logging out with an API token does not revoke it; DELETE does
    await api.call("GET", "/users/logout", as_token, 200)
    await api.call("GET", "/users/me", as_token, 200)
    deleted = await api.call("DELETE", f"/settings/tokens/{created['token_id']}", tester, 200)
    assert deleted == {"deleted": True, "id": created["token_id"]}
    status, detail = await _status_of_token(api.client, secret)
    assert status == 401 and "revoked" in detail
    assert await api.call("GET", "/settings/tokens", tester, 200) == []
    await api.call("DELETE", f"/settings/tokens/{created['token_id']}", tester, 404)

    # expiry: in the past -> 422; in the future -> listed with it
    past = (datetime.now(UTC) - timedelta(days=1)).isoformat()
    await api.call("POST", "/settings/tokens", tester, 422, json={"name": "old", "expires_at": past})
    future = (datetime.now(UTC) + timedelta(days=30)).replace(microsecond=0)
    expiring = await api.call("POST", "/settings/tokens", tester, 201,
                              json={"name": "soon", "expires_at": future.isoformat()})
    assert expiring["expires_at"] == future.isoformat().replace("+00:00", "Z")
    await api.call("POST", "/settings/tokens", tester, 400, json={"expires_at": future.isoformat()})


async def test_invitations(api: Api) -> None:
    _, admin = await api.create_tenant()
    manager = await api.create_user(admin, "Manager")
    tester = await api.create_user(admin, "Tester")

    invited_name = unique("invited")
    invited = await api.call("POST", "/users/invite", manager, 201, json={
        "username": invited_name, "email": f"{invited_name}@example.com", "role": "Tester"})
    token = invited["invitation_token"]
    assert token and token in invited["invitation_url"] and invited["invitation_url"].startswith("http")
    assert invited["is_active"] is False and invited["invitation_pending"] is True and invited["role"] == "Tester"
    # a Manager may not invite above their own role; a Tester may not invite at all
    await api.call("POST", "/users/invite", manager, 403, json={
        "username": unique("boss"), "email": "boss@example.com", "role": "Admin"})
    await api.call("POST", "/users/invite", tester, 403, json={
        "username": unique("friend"), "email": "friend@example.com"})

    created = await api.call("POST", "/users/create", admin, 201, json={"username": unique("nopass"), "role": "Manager"})
    assert created["invitation_token"] and created["invitation_pending"] is True and created["is_active"] is False
    with_password = await api.call("POST", "/users/create", admin, 201,
                                   json={"username": unique("haspass"), "password": "long-enough-1"})
    assert with_password["invitation_token"] is None and with_password["invitation_url"] is None

    # no login before the password is set, and an inactive invitee cannot be activated by hand
    r = await api.client.post(BASE + "/users/token", data={"username": invited_name, "password": "anything-1"})
    assert r.status_code == 401 and r.json()["detail"] == BAD_CREDENTIALS
    await api.call("PATCH", f"/users/{invited['id']}", admin, 409, json={"is_active": True})

    # setup-password: short password -> 422 (token still usable), bad token -> 404, then once only
    await api.call("POST", "/users/setup-password", None, 422, json={"token": token, "password": "short"})
    await api.call("POST", "/users/setup-password", None, 404, json={"token": "not-a-token", "password": "long-enough-1"})
    await api.call("POST", "/users/setup-password", None, 400, json={"token": token})
    done = await api.call("POST", "/users/setup-password", None, 200, json={"token": token, "password": "long-enough-1"})
    assert done["id"] == invited["id"] and done["is_active"] is True and done["invitation_pending"] is False
    again = await api.call("POST", "/users/setup-password", None, 404,
                           json={"token": token, "password": "another-one-2"})
    assert "already been used" in again["detail"]
    actor = await api.login(invited_name, "long-enough-1")
    assert actor.id == invited["id"] and actor.tenant_id == manager.tenant_id
    r = await api.client.post(BASE + "/users/token", data={"username": invited_name, "password": "another-one-2"})
    assert r.status_code == 401

    # the other invitation works independently
    await api.call("POST", "/users/setup-password", None, 200,
                   json={"token": created["invitation_token"], "password": "long-enough-2"})
    await api.login(created["username"], "long-enough-2")



async def test_deactivating_an_invitee_withdraws_the_invitation(api: Api) -> None:
    _, admin = await api.create_tenant()
    name = unique("withdrawn")
    invited = await api.call("POST", "/users/invite", admin, 201, json={
        "username": name, "email": f"{name}@example.com", "role": "Tester"})
    await api.call("PATCH", f"/users/{invited['id']}", admin, 200, json={"is_active": False})
    refused = await api.call("POST", "/users/setup-password", None, 404,
                             json={"token": invited["invitation_token"], "password": "long-enough-1"})
    assert refused["code"] == "invitation_not_found"

@asynccontextmanager
async def _api_with(settings: Settings, **overrides: Any) -> AsyncIterator[Api]:
    """The same database served by an app with other settings (short windows for expiry tests)."""
    application = create_app(settings.model_copy(update=overrides), run_migrations=False)
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            api = Api(client)
            await api.login_as_root(ADMIN_PASSWORD)
            yield api


async def test_lockout_expires(settings: Settings, clock: time_machine.Traveller) -> None:
    async with _api_with(settings, login_max_failures=2, login_window_seconds=1, login_lockout_seconds=1) as api:
        _, admin = await api.create_tenant()
        tester = await api.create_user(admin, "Tester")
        for _ in range(2):
            r = await api.client.post(BASE + "/users/token", data={"username": tester.username, "password": "bad-pass"})
            assert r.status_code == 401
        r = await api.client.post(BASE + "/users/token", data={"username": tester.username, "password": USER_PASSWORD})
        assert r.status_code == 429 and r.headers["Retry-After"] in {"1", "2"}
        clock.shift(2.1)
        # lock and window are over: one more failure does not lock again, the right password works
        r = await api.client.post(BASE + "/users/token", data={"username": tester.username, "password": "bad-pass"})
        assert r.status_code == 401
        await api.login(tester.username, USER_PASSWORD)


async def test_expired_api_token_and_invitation(api: Api, settings: Settings, clock: time_machine.Traveller) -> None:
    _, admin = await api.create_tenant()
    soon = datetime.now(UTC) + timedelta(seconds=1.5)
    created = await api.call("POST", "/settings/tokens", admin, 201, json={"name": "short", "expires_at": soon.isoformat()})
    assert (await _status_of_token(api.client, created["token"]))[0] == 200
    clock.shift(max(0.0, (soon - datetime.now(UTC)).total_seconds()) + 0.2)
    assert await _status_of_token(api.client, created["token"]) == (401, "The API token has expired.")

    invited = await api.call("POST", "/users/create", admin, 201, json={"username": unique("late")})
    # invitations last days; age this one in the database instead of waiting
    engine = make_sync_engine(settings.database_url)
    try:
        with engine.begin() as conn:
            conn.execute(text("UPDATE invitation SET expires_at = created_at WHERE user_id = :uid"),
                         {"uid": invited["id"]})
    finally:
        engine.dispose()
    err = await api.call("POST", "/users/setup-password", None, 422,
                         json={"token": invited["invitation_token"], "password": "long-enough-1"})
    assert "expired" in err["detail"]
    r = await api.client.post(BASE + "/users/token", data={"username": invited["username"], "password": "long-enough-1"})
    assert r.status_code == 401



async def test_withdrawn_invitation_and_logout_with_an_api_token(api: Api) -> None:
    _, admin = await api.create_tenant()
    name = unique("withdrawn")
    invited = await api.call("POST", "/users/invite", admin, 201, json={
        "username": name, "email": f"{name}@example.com", "role": "Tester"})
    # deactivating an invitee withdraws the invitation: the token no longer sets a password
    changed = await api.call("PATCH", f"/users/{invited['id']}", admin, 200, json={"is_active": False})
    assert changed["is_active"] is False
    await api.call("POST", "/users/setup-password", None, 404,
                   json={"token": invited["invitation_token"], "password": "long-enough-1"})
    r = await api.client.post(BASE + "/users/token", data={"username": name, "password": "long-enough-1"})
    assert r.status_code == 401

    # logout with an API token says the truth: the token keeps working
    secret = (await api.call("POST", "/settings/tokens", admin, 201, json={"name": "ci"}))["token"]
    headers = {"Authorization": f"Bearer {secret}"}
    r = await api.client.get(BASE + "/users/logout", headers=headers)
    assert r.status_code == 200 and "API tokens stay valid" in r.json()["detail"]
    assert (await api.client.get(BASE + "/users/me", headers=headers)).status_code == 200
