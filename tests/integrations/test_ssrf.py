"""The SSRF guard with private addresses disallowed (the production default): every loopback,
private, link-local and disguised form is refused when the integration is saved and again when
a request would be sent, and a loopback listener records zero requests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from app.core.settings import Settings
from app.core.webhooks import sender, signing
from tests.api_client import Api
from tests.integrations.receiver import Receiver


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"webhook_allow_private": False})


@pytest.fixture
def listener() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


def _unsafe_urls(port: int) -> list[str]:
    return [
        f"http://127.0.0.1:{port}/hook",
        f"http://[::1]:{port}/hook",
        f"http://[::ffff:127.0.0.1]:{port}/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/hook",
        f"http://0x7f000001:{port}/hook",
        f"http://localhost:{port}/hook",  # a name resolving to loopback
        "http://100.64.0.1/hook",  # CGNAT
        "http://192.168.1.10/hook",
        "http://[fe80::1]/hook",
        "http://224.0.0.1/hook",
        "http://0.0.0.0/hook",
    ]


async def test_unsafe_webhook_urls_are_refused(api: Api, listener: Receiver) -> None:
    _, admin = await api.create_tenant()
    for url in _unsafe_urls(listener.port):
        r = await api.request("POST", "/integrations", admin, json={"name": "evil", "provider": "webhook",
                                                                    "config": {"url": url}})
        assert r.status_code == 422, (url, r.text)
        assert "resolves to" in r.json()["detail"], (url, r.text)
    for url in ("ftp://example.com/x", "http://user:pw@example.com/", "http:///nohost", "file:///etc/passwd"):
        r = await api.request("POST", "/integrations", admin, json={"name": "bad", "provider": "webhook",
                                                                    "config": {"url": url}})
        assert r.status_code == 422, (url, r.text)
    r = await api.request("POST", "/integrations", admin, json={
        "name": "s3", "provider": "s3", "config": {"endpoint_url": f"http://127.0.0.1:{listener.port}",
                                                   "bucket": "data", "access_key_id": "k", "secret_access_key": "s"}})
    assert r.status_code == 422
    assert (await api.call("GET", "/integrations", admin, 200)) == []
    # a public address literal is accepted (no lookup needed); changing it to loopback is refused
    public = await api.call("POST", "/integrations", admin, 201, json={
        "name": "public", "provider": "webhook", "config": {"url": "https://93.184.215.14/hook"}})
    r = await api.request("PUT", f"/integrations/{public['integration_id']}", admin,
                          json={"config": {"url": f"http://localhost:{listener.port}/hook"}})
    assert r.status_code == 422 and "loopback" in r.json()["detail"]
    assert (await api.call("GET", "/integrations", admin, 200))[0]["config"]["url"] == "https://93.184.215.14/hook"
    assert listener.requests == []


async def test_send_time_guard_and_redirects(listener: Receiver) -> None:
    """At send time the destination is vetted again (a name may change its addresses after it was
    saved), and a redirect to loopback is never followed."""
    secret = signing.new_secret()
    body = b'{"type": "ping"}'
    for url in _unsafe_urls(listener.port):
        result = await sender.post(url, signing.headers(secret, "evt_1", 1, body), body, timeout=2,
                                   allow_private=False)
        assert not result.ok and result.status_code is None and result.error, url
    assert listener.requests == []

    redirector = Receiver(default_status=302, redirect_to=listener.url)
    try:
        result = await sender.post(redirector.url, signing.headers(secret, "evt_2", 1, body), body, timeout=2,
                                   allow_private=True)
        assert not result.ok and result.status_code == 302 and "redirects are not followed" in (result.error or "")
        assert len(redirector.requests) == 1
    finally:
        redirector.close()
    assert listener.requests == []
