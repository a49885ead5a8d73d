"""The web interface at `/`: deep links load index.html (history routing), hashed assets are
cached for good, both carry the security headers, and the API's own paths keep their answers
(JSON 404 for unknown ones, GraphiQL, the reference, the OpenAPI document)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest

from app.core.settings import Settings
from app.main import create_app
from app.web.spa import CONTENT_SECURITY_POLICY

INDEX = '<!doctype html><title>TDG</title><div id="root"></div><script type="module" src="/assets/index-3f9a.js"></script>'
SCRIPT = b"document.getElementById('root').textContent = 'app';"
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
       "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
       "frame-ancestors 'none'")


@pytest.fixture
def build(tmp_path: Path) -> Path:
    """A tiny production build laid out as Vite writes it."""
    root = tmp_path / "build"
    (root / "assets").mkdir(parents=True)
    (root / "index.html").write_text(INDEX)
    (root / "assets" / "index-3f9a.js").write_bytes(SCRIPT)
    (root / "favicon.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    return root


@asynccontextmanager
async def _client(settings: Settings, web_dir: Path) -> AsyncIterator[httpx.AsyncClient]:
    application = create_app(settings, run_migrations=False, web_dir=web_dir)
    async with application.router.lifespan_context(application):
        transport = httpx.ASGITransport(app=application)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            yield client


@pytest.fixture
async def web(settings: Settings, build: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with _client(settings, build) as client:
        yield client


def _assert_secured(r: httpx.Response) -> None:
    assert r.headers["content-security-policy"] == CSP == CONTENT_SECURITY_POLICY
    assert r.headers["referrer-policy"] == "same-origin"
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "DENY"


def _assert_json_404(r: httpx.Response) -> None:
    assert r.status_code == 404, (r.request.url, r.status_code, r.text[:200])
    assert r.headers["content-type"] == "application/json"
    assert isinstance(r.json()["detail"], str) and r.json()["detail"]


@pytest.mark.parametrize("path", ["/", "/projects/12", "/setup-password?token=x", "/library/schemas/3",
                                  "/settings/tokens", "/login?next=%2Fprojects%2F12", "/projects/12/"])
async def test_deep_links_load_the_app(web: httpx.AsyncClient, path: str) -> None:
    r = await web.get(path, headers={"Accept": "text/html"})
    assert r.status_code == 200, r.text
    assert r.text == INDEX
    assert r.headers["content-type"].startswith("text/html")
    assert r.headers["cache-control"] == "no-cache"
    _assert_secured(r)


async def test_assets_are_immutable_and_secured(web: httpx.AsyncClient) -> None:
    r = await web.get("/assets/index-3f9a.js")
    assert r.status_code == 200 and r.content == SCRIPT
    assert "javascript" in r.headers["content-type"]
    assert r.headers["cache-control"] == "public, max-age=31536000, immutable"
    _assert_secured(r)
    again = await web.get("/assets/index-3f9a.js", headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304
    _assert_json_404(await web.get("/assets/index-0000.js"))
    _assert_json_404(await web.get("/assets/..%2Findex.html"))
    icon = await web.get("/favicon.svg")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg")
    assert icon.headers["cache-control"] == "no-cache"
    head = await web.head("/projects/3")
    assert head.status_code == 200 and head.headers["content-type"].startswith("text/html")


async def test_api_paths_keep_their_answers(web: httpx.AsyncClient) -> None:
    for path in ("/api/v1/nope", "/api/v1/projects/12/nope", "/api", "/api/nope", "/graphql/nope",
                 "/avatars/nope.png", "/avatars/x", "/healthz/x", "/readyz/x"):
        _assert_json_404(await web.get(path, headers={"Accept": "text/html"}))
    # only GET and HEAD load the app; a wrong method on a known path is still 405
    _assert_json_404(await web.post("/projects/12", json={}))
    assert (await web.post("/healthz")).status_code == 405
    assert (await web.get("/healthz")).json() == {"status": "ok"}
    assert (await web.get("/readyz")).json() == {"status": "ready"}
    r = await web.get("/api/v1/users/me")
    assert r.status_code == 401 and r.json()["detail"]

    graphiql = await web.get("/graphql", headers={"Accept": "text/html"})
    assert graphiql.status_code == 200 and "graphiql" in graphiql.text.lower() and graphiql.text != INDEX
    reference = await web.get("/api/reference")
    assert reference.status_code == 200 and reference.text != INDEX
    openapi = await web.get("/api/v1/openapi.json")
    assert openapi.status_code == 200 and openapi.json()["paths"]
    answer = await web.post("/graphql", json={"query": "{ __typename }"})
    assert answer.json() == {"data": {"__typename": "Query"}}


async def test_without_a_build_the_root_says_so(settings: Settings, tmp_path: Path) -> None:
    async with _client(settings, tmp_path / "no-build") as web:
        r = await web.get("/")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert "web interface was not built" in r.text
        for link in ("/graphql", "/api/reference", "/api/v1/openapi.json"):
            assert f"href='{link}'" in r.text
        _assert_secured(r)
        _assert_json_404(await web.get("/assets/index-3f9a.js"))
        _assert_json_404(await web.get("/api/v1/nope"))
