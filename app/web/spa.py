"""Serves the single-page app at `/` with history routing: a GET for a path no route answers
(a deep link such as /projects/12) gets index.html, except under the API's own prefixes, which
keep their JSON 404. Hashed assets are cached for good, index.html is revalidated every time."""

from __future__ import annotations

import os
from pathlib import Path

from fastapi import FastAPI
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

STATIC_DIR = Path(__file__).parent / "static"

# No inline script anywhere; Mantine sets inline style attributes. 'self' covers same-origin
# ws:/wss: for the GraphQL subscription socket (CSP Level 3, as Chromium implements it).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "Referrer-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
}
# index.html names the current hashed assets: a stale copy would load assets that no longer exist
REVALIDATE = {"Cache-Control": "no-cache"}
IMMUTABLE = {"Cache-Control": "public, max-age=31536000, immutable"}
# first path segments the app never claims: their unknown paths stay the API's JSON 404
RESERVED = frozenset({"api", "graphql", "healthz", "readyz", "avatars", "assets"})


def _not_built_page(links: dict[str, str]) -> str:
    items = "".join(f"<li><a href='{href}'>{label}</a></li>" for label, href in links.items())
    return (
        "<!doctype html><title>Test Data Generation Service</title><h1>Test Data Generation Service</h1>"
        "<p>The web interface was not built: run <code>npm ci &amp;&amp; npm run build</code> in "
        f"<code>web/</code>. The API is available:</p><ul>{items}</ul>"
    )


class _Assets(StaticFiles):
    """The build's hashed assets: a changed file gets a new name, so they never need revalidating."""

    async def check_config(self) -> None:
        # without a build (yet) its assets are simply not found, as any other missing file
        if self.directory is not None and Path(self.directory).is_dir():
            await super().check_config()

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers.update({**IMMUTABLE, **SECURITY_HEADERS})
        return response


class SinglePageApp:
    """The router's fallback, reached only when no route matched the path at all (so a wrong
    method on a known path is still 405)."""

    def __init__(self, directory: Path, not_found: ASGIApp, links: dict[str, str]) -> None:
        self.directory = directory
        self.not_found = not_found
        self.missing_page = _not_built_page(links)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        first = path.lstrip("/").split("/", 1)[0]
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD") or first in RESERVED:
            await self.not_found(scope, receive, send)
            return
        await self._page(path)(scope, receive, send)

    def _page(self, path: str) -> Response:
        index = self.directory / "index.html"
        if not index.is_file():
            return HTMLResponse(self.missing_page, headers={**REVALIDATE, **SECURITY_HEADERS})
        # files at the build's top level (favicon, robots.txt) are served as they are
        name = path.strip("/")
        if name and "/" not in name and "\x00" not in name and name not in (".", ".."):
            candidate = self.directory / name
            if candidate.is_file():
                return FileResponse(candidate, headers={**REVALIDATE, **SECURITY_HEADERS})
        return FileResponse(index, media_type="text/html", headers={**REVALIDATE, **SECURITY_HEADERS})


def install(app: FastAPI, directory: Path, links: dict[str, str]) -> None:
    """Serve the build in `directory` (checked per request: a build made while the server runs is
    picked up; without one, `/` says so and lists `links`)."""
    app.mount("/assets", _Assets(directory=directory / "assets", check_dir=False), name="web-assets")
    app.router.default = SinglePageApp(directory, app.router.not_found, links)
