"""Settings over HTTP: profile, avatar, password and email changes, notification preferences,
account deletion, each with its 4xx paths."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from tests.api_client import BASE, USER_PASSWORD, Api
from tests.support.s3_server import STORAGES


def _image(fmt: str, size: tuple[int, int] = (300, 200), color: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format=fmt)
    return out.getvalue()


async def test_get_and_update_profile(api: Api) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    body = await api.call("GET", "/settings", tester, 200)
    assert body["username"] == tester.username and body["theme"] == "system" and body["locale"] == "en_US"
    assert body["avatar_url"] is None and body["two_factor_enabled"] is False
    assert body["notifications"]["dataset.completed"] == {"in_app": True, "webhook": True}

    body = await api.call("PUT", "/settings", tester, 200, json={"display_name": "Tess", "theme": "dark",
                                                                 "locale": "de_DE"})
    assert (body["display_name"], body["theme"], body["locale"]) == ("Tess", "dark", "de_DE")
    assert (await api.call("GET", "/users/me", tester, 200))["theme"] == "dark"

    await api.call("PUT", "/settings", tester, 422, json={"theme": "purple"})
    await api.call("PUT", "/settings", tester, 422, json={"locale": "../etc"})
    await api.call("PUT", "/settings", tester, 422, json={"role": "Admin"})
    await api.call("PUT", "/settings", tester, 422, json={})
    await api.call("PUT", "/settings", tester, 400, content=b"{", headers={"Content-Type": "application/json"})
    await api.call("PUT", "/settings", tester, 415, content=b"theme=dark",
                   headers={"Content-Type": "application/x-www-form-urlencoded"})
    await api.call("GET", "/settings", None, 401)


@pytest.mark.parametrize("storage", STORAGES)  # blobs in the local folder and on S3
async def test_avatar_upload_is_reencoded_and_served(api: Api) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    for fmt, name in (("PNG", "a.png"), ("JPEG", "a.jpg"), ("WEBP", "a.webp")):
        raw = _image(fmt) + b"trailing-payload"
        body = await api.call("POST", "/settings/avatar", tester, 200, files={"file": (name, raw)})
        url = body["avatar_url"]
        assert url and url.startswith("/avatars/") and url.endswith(".png")
        served = await api.client.get(url)
        assert served.status_code == 200 and served.headers["content-type"] == "image/png"
        assert b"trailing-payload" not in served.content
        with Image.open(io.BytesIO(served.content)) as img:
            assert img.format == "PNG" and img.size == (256, 256)
    # JSON with base64 works too, and the user record points at the new image
    raw = _image("PNG", color=(1, 2, 3))
    body = await api.call("POST", "/settings/avatar", tester, 200,
                          json={"content_base64": base64.b64encode(raw).decode()})
    assert (await api.call("GET", "/settings", tester, 200))["avatar_url"] == body["avatar_url"]

    r = await api.request("POST", "/settings/avatar", tester, files={"file": ("x.png", b"not an image at all")})
    assert r.status_code == 422 and "image" in r.json()["detail"]
    gif = io.BytesIO()
    Image.new("RGB", (10, 10)).save(gif, format="GIF")
    r = await api.request("POST", "/settings/avatar", tester, files={"file": ("x.gif", gif.getvalue())})
    assert r.status_code == 422
    r = await api.request("POST", "/settings/avatar", tester, files={"file": ("big.png", b"\x89PNG" + b"0" * (2 * 2**20))})
    assert r.status_code == 413
    r = await api.request("POST", "/settings/avatar", tester, data={"other": "x"},
                          files={"nofile": ("x.png", raw)})
    assert r.status_code == 400
    r = await api.request("POST", "/settings/avatar", tester, json={"content_base64": "***"})
    assert r.status_code == 422
    assert (await api.client.get("/avatars/" + "0" * 64 + ".png")).status_code == 404
    assert (await api.client.get("/avatars/..%2f..%2fsecret_key.png")).status_code == 404


async def test_change_password_revokes_other_tokens(api: Api) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    other = await api.login(tester.username, USER_PASSWORD)
    api_token = (await api.call("POST", "/settings/tokens", tester, 201, json={"name": "ci"}))["token"]
    # no pause: tokens issued in the same second as the change must still be told apart

    await api.call("POST", "/settings/change_password", tester, 403,
                   json={"current_password": "wrong-password", "new_password": "new-password-1"})
    await api.call("POST", "/settings/change_password", tester, 422,
                   json={"current_password": USER_PASSWORD, "new_password": "short"})
    await api.call("POST", "/settings/change_password", tester, 400, json={"current_password": USER_PASSWORD})
    body = await api.call("POST", "/settings/change_password", tester, 200,
                          json={"current_password": USER_PASSWORD, "new_password": "new-password-1"})
    fresh = {"Authorization": f"Bearer {body['access_token']}"}
    assert (await api.client.get(BASE + "/users/me", headers=fresh)).status_code == 200
    for old in (tester, other):
        assert (await api.request("GET", "/users/me", old)).status_code == 401
    # API tokens are explicit CI credentials, revoked one by one in Settings -> Tokens
    assert (await api.client.get(BASE + "/users/me", headers={"Authorization": f"Bearer {api_token}"})).status_code == 200
    r = await api.client.post(BASE + "/users/token", data={"username": tester.username, "password": USER_PASSWORD})
    assert r.status_code == 401
    # a login right after the change (very likely the same second) gets a working token
    await api.login(tester.username, "new-password-1")


async def test_change_email(api: Api) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    await api.call("POST", "/settings/change_email", tester, 422, json={"email": "not-an-email", "password": USER_PASSWORD})
    await api.call("POST", "/settings/change_email", tester, 403, json={"email": "new@example.com", "password": "bad-one-1"})
    await api.call("POST", "/settings/change_email", tester, 409,
                   json={"email": f"{admin.username}@example.com", "password": USER_PASSWORD})
    await api.call("POST", "/settings/change_email", tester, 400, json={"email": "new@example.com"})
    body = await api.call("POST", "/settings/change_email", tester, 200,
                          json={"email": "new@example.com", "password": USER_PASSWORD})
    assert body["email"] == "new@example.com"
    # unique per tenant only: another tenant may use the same address
    _, admin2 = await api.create_tenant()
    other = await api.create_user(admin2, "Tester")
    await api.call("POST", "/settings/change_email", other, 200, json={"email": "new@example.com", "password": USER_PASSWORD})


async def test_notification_preferences(api: Api) -> None:
    _, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    body = await api.call("POST", "/settings/notifications", tester, 200, json={"preferences": {
        "dataset.completed": {"in_app": False}, "project.created": {"webhook": False}}})
    prefs = body["notifications"]
    assert prefs["dataset.completed"] == {"in_app": False, "webhook": True}
    assert prefs["project.created"] == {"in_app": True, "webhook": False}
    assert prefs["dataset.failed"] == {"in_app": True, "webhook": True}
    assert (await api.call("GET", "/settings", tester, 200))["notifications"] == prefs
    await api.call("POST", "/settings/notifications", tester, 422, json={"preferences": {"nope.event": {"in_app": True}}})
    await api.call("POST", "/settings/notifications", tester, 422,
                   json={"preferences": {"dataset.failed": {"in_app": "yes"}}})
    await api.call("POST", "/settings/notifications", tester, 400, json={})


async def test_delete_account(api: Api) -> None:
    tenant_id, admin = await api.create_tenant()
    tester = await api.create_user(admin, "Tester")
    await api.call("PUT", "/settings", tester, 200, json={"display_name": "Gone Soon"})
    await api.call("POST", "/settings/delete", tester, 403, json={"password": "wrong-pass-1"})
    await api.call("POST", "/settings/delete", tester, 400, json={})
    await api.call("POST", "/settings/delete", tester, 200, json={"password": USER_PASSWORD})
    assert (await api.request("GET", "/users/me", tester)).status_code == 401
    r = await api.client.post(BASE + "/users/token", data={"username": tester.username, "password": USER_PASSWORD})
    assert r.status_code == 401
    user = await api.call("GET", f"/users/{tester.id}", admin, 200)
    assert user["is_active"] is False and user["email"] is None and user["display_name"] is None
    assert user["username"].startswith("deleted-")
    # the audit trail still names the user as they were
    rows = await api.call("GET", "/audit/logs", admin, 200, params={"actor_id": tester.id})
    assert rows and all(r["actor_username"] == tester.username for r in rows)
    assert any(r["action"] == "settings.delete_account" for r in rows)

    # the last active Admin of a tenant cannot leave it without an Admin
    await api.call("POST", "/settings/delete", admin, 409, json={"password": "admin-password-1"})
    second = await api.create_user(admin, "Admin")
    await api.call("POST", "/settings/delete", admin, 200, json={"password": "admin-password-1"})
    assert (await api.call("GET", f"/tenants/{tenant_id}", second, 200))["tenant_id"] == tenant_id
