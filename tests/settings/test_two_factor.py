"""Two-factor authentication over HTTP with real TOTP codes computed by pyotp: enrolment,
login with a code, replay refused, recovery codes work exactly once, throttling, disabling."""

from __future__ import annotations

import asyncio
import time
from typing import Any
from urllib.parse import parse_qs, urlparse

import pyotp
from sqlalchemy import text

from app.core.database import make_sync_engine
from app.core.security.sealed import unseal
from app.core.settings import Settings
from tests.api_client import BASE, USER_PASSWORD, Actor, Api


async def _login(api: Api, username: str, otp: str | None = None, password: str = USER_PASSWORD) -> Any:
    data = {"username": username, "password": password} | ({"otp": otp} if otp is not None else {})
    return await api.client.post(BASE + "/users/token", data=data)


def _code_of_next_step(totp: pyotp.TOTP) -> str:
    """A code for the next time step (inside valid_window=1), i.e. not the one just used."""
    return totp.at(time.time() + totp.interval)


async def _enrol(api: Api, actor: Actor) -> tuple[pyotp.TOTP, list[str]]:
    start = await api.call("POST", "/settings/enable_2fa", actor, 200, json={})
    assert start["enabled"] is False and start["recovery_codes"] == []
    uri = urlparse(start["otpauth_uri"])
    assert uri.scheme == "otpauth" and uri.netloc == "totp"
    assert parse_qs(uri.query)["secret"] == [start["secret"]]
    totp = pyotp.TOTP(start["secret"])
    await api.call("POST", "/settings/enable_2fa", actor, 422, json={"code": "000000" if totp.now() != "000000"
                                                                      else "111111"})
    done = await api.call("POST", "/settings/enable_2fa", actor, 200, json={"code": totp.now()})
    assert done["enabled"] is True and done["secret"] is None
    codes = done["recovery_codes"]
    assert len(codes) == 10 and len(set(codes)) == 10
    return totp, codes


async def test_enrol_and_login_with_totp_and_recovery_codes(api: Api) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    await api.call("POST", "/settings/enable_2fa", tester, 409, json={"code": "123456"})  # nothing to confirm
    totp, codes = await _enrol(api, tester)
    assert (await api.call("GET", "/settings", tester, 200))["two_factor_enabled"] is True
    await api.call("POST", "/settings/enable_2fa", tester, 409, json={})

    r = await _login(api, tester.username)
    assert r.status_code == 401 and "one-time code" in r.json()["detail"]
    r = await _login(api, tester.username, "12345x")
    assert r.status_code == 401 and "one-time code" in r.json()["detail"]

    # the confirmation consumed the current step: the next step's code logs in, once
    code = _code_of_next_step(totp)
    r = await _login(api, tester.username, code)
    assert r.status_code == 200, r.text
    token = r.json()["access_token"]
    assert (await api.client.get(BASE + "/users/me", headers={"Authorization": f"Bearer {token}"})).status_code == 200
    replay = await _login(api, tester.username, code)
    assert replay.status_code == 401 and "one-time code" in replay.json()["detail"]
    # the current code is older than the one just used: refused too
    assert (await _login(api, tester.username, totp.now())).status_code == 401

    # a recovery code works exactly once, whatever its spacing and case
    assert (await _login(api, tester.username, codes[0].upper().replace("-", " "))).status_code == 200
    assert (await _login(api, tester.username, codes[0])).status_code == 401
    assert (await _login(api, tester.username, codes[1])).status_code == 200
    # a wrong password is refused before the code is even looked at (the code stays unused)
    assert (await _login(api, tester.username, codes[2], password="wrong-password")).status_code == 401
    assert (await _login(api, tester.username, codes[2])).status_code == 200

    # API tokens keep working for 2FA users (the CI path)
    api_token = (await api.call("POST", "/settings/tokens", tester, 201, json={"name": "ci"}))["token"]
    r = await api.client.get(BASE + "/users/me", headers={"Authorization": f"Bearer {api_token}"})
    assert r.status_code == 200
    rows = await api.call("GET", "/audit/logs", admin, 200, params={"action": "auth.login"})
    assert any(r["details"].get("reason") == "bad one-time code" for r in rows)


async def test_secret_is_encrypted_at_rest(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    totp, codes = await _enrol(api, tester)
    engine = make_sync_engine(settings.database_url)
    try:
        with engine.connect() as conn:
            stored = conn.execute(text("SELECT totp_secret_enc FROM user_account WHERE id = :id"),
                                  {"id": tester.id}).scalar_one()
            hashes = conn.execute(text("SELECT code_hash FROM recovery_code WHERE user_id = :id"),
                                  {"id": tester.id}).scalars().all()
    finally:
        engine.dispose()
    assert totp.secret not in stored and unseal(settings.signing_key(), stored) == totp.secret
    assert len(hashes) == 10 and not set(codes) & set(hashes)


async def test_wrong_codes_are_throttled(api: Api, settings: Settings) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    await _enrol(api, tester)
    statuses = [(await _login(api, tester.username, "000000")).status_code
                for _ in range(settings.login_max_failures + 1)]
    assert statuses[-1] == 429, statuses
    r = await _login(api, tester.username, "000000")
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0


async def test_disable_two_factor(api: Api) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    await api.call("POST", "/settings/disable_2fa", tester, 409, json={"password": USER_PASSWORD, "code": "123456"})
    totp, codes = await _enrol(api, tester)
    await api.call("POST", "/settings/disable_2fa", tester, 400, json={"password": USER_PASSWORD})
    await api.call("POST", "/settings/disable_2fa", tester, 403, json={"password": "wrong-pass-1", "code": codes[0]})
    await api.call("POST", "/settings/disable_2fa", tester, 403, json={"password": USER_PASSWORD, "code": "000000"})
    body = await api.call("POST", "/settings/disable_2fa", tester, 200, json={"password": USER_PASSWORD,
                                                                              "code": codes[0]})
    assert body["enabled"] is False
    assert (await _login(api, tester.username)).status_code == 200
    # enrolling again issues a new secret and new recovery codes; the old ones are gone
    totp2, codes2 = await _enrol(api, tester)
    assert totp2.secret != totp.secret and not set(codes) & set(codes2)
    assert (await _login(api, tester.username, codes[3])).status_code == 401


async def test_two_factor_over_graphql(api: Api) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    data = await api.gql_data("mutation { enable_2fa(input: {}) { enabled secret otpauth_uri } }", actor=tester)
    totp = pyotp.TOTP(data["enable_2fa"]["secret"])
    data = await api.gql_data("mutation($c: String!) { enable_2fa(input: {code: $c}) { enabled recovery_codes } }",
                              {"c": totp.now()}, actor=tester)
    assert data["enable_2fa"]["enabled"] and len(data["enable_2fa"]["recovery_codes"]) == 10
    login = "mutation($u: String!, $p: String!, $o: String) { login(username: $u, password: $p, otp: $o) { access_token } }"
    body = await api.graphql(login, {"u": tester.username, "p": USER_PASSWORD})
    assert body["errors"][0]["extensions"]["code"] == "one_time_code_required"
    body = await api.graphql(login, {"u": tester.username, "p": USER_PASSWORD, "o": _code_of_next_step(totp)})
    assert not body.get("errors") and body["data"]["login"]["access_token"]


async def test_one_code_racing_twice_logs_in_once(api: Api) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    totp, _ = await _enrol(api, tester)
    code = _code_of_next_step(totp)
    results = await asyncio.gather(*(_login(api, tester.username, code) for _ in range(4)))
    statuses = sorted(r.status_code for r in results)
    assert statuses == [200, 401, 401, 401], [r.text for r in results]
