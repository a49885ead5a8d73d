"""What the browser tests share: REST set-up through the real API, logging in through the UI, the
axe-core check and the screenshots at both sizes. Elements are found by role and accessible name."""

from __future__ import annotations

import json
import re
import time
import uuid
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Locator, Page, expect

from tests.web.browser.server import ADMIN_PASSWORD, ADMIN_USERNAME, ROOT, Server

API = "/api/v1"
USER_PASSWORD = "user-password-123"
AXE_JS = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"
ARTIFACTS = ROOT / "test-artifacts"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
TOKEN_KEY = "tdg.token"  # web/src/api/session.ts

# the backend each page's server runs on, for the screenshot folder
_BACKEND_OF: weakref.WeakKeyDictionary[Page, str] = weakref.WeakKeyDictionary()
_AXE_VIOLATIONS: weakref.WeakKeyDictionary[Page, list[str]] = weakref.WeakKeyDictionary()


def unique(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:6]}"


@dataclass
class Actor:
    id: int
    username: str
    password: str
    token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


class Rest:
    """Quick set-up over the real REST API, for what a test only needs as a precondition."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.http = httpx.Client(base_url=server.url + API, timeout=30)
        self._root: Actor | None = None

    def close(self) -> None:
        self.http.close()

    def call(self, method: str, path: str, actor: Actor | None, status: int = 200, **kwargs: Any) -> Any:
        headers = actor.headers if actor else {}
        r = self.http.request(method, path, headers=headers, **kwargs)
        assert r.status_code == status, f"{method} {path}: expected {status}, got {r.status_code}: {r.text}"
        return r.json() if r.content else None

    def token(self, username: str, password: str) -> str:
        body = self.call("POST", "/users/token", None, data={"username": username, "password": password})
        return str(body["access_token"])

    def login(self, username: str, password: str) -> Actor:
        token = self.token(username, password)
        me = self.call("GET", "/users/me", Actor(0, username, password, token))
        return Actor(int(me["id"]), username, password, token)

    @property
    def root(self) -> Actor:
        if self._root is None:
            self._root = self.login(ADMIN_USERNAME, ADMIN_PASSWORD)
        return self._root

    def create_user(self, role: str, username: str | None = None, by: Actor | None = None) -> Actor:
        username = username or unique(role.lower())
        self.call("POST", "/users/create", by or self.root, 201, json={
            "username": username, "password": USER_PASSWORD, "role": role, "email": f"{username}@example.com"})
        return self.login(username, USER_PASSWORD)

    def create_project(self, name: str | None = None, by: Actor | None = None, **extra: Any) -> dict[str, Any]:
        body = {"name": name or unique("project"), "description": "Set up by a browser test", **extra}
        return dict(self.call("POST", "/projects/create", by or self.root, 201, json=body))

    def add_member(self, project_id: int, user_id: int, role: str = "view", by: Actor | None = None) -> None:
        self.call("POST", f"/projects/{project_id}/add-user", by or self.root, json={"user_id": user_id, "role": role})

    def upload_schema(self, path: Path, by: Actor | None = None) -> dict[str, Any]:
        with path.open("rb") as f:
            return dict(self.call("POST", "/schemas", by or self.root, 201, files={"file": (path.name, f)}))


    def link_schema(self, project_id: int, schema_id: int, by: Actor | None = None) -> None:
        self.call("POST", f"/projects/{project_id}/add-schema", by or self.root, json={"schema_id": schema_id})

    def create_dataset(self, project_id: int, schema_id: int, records: int, types: list[str],
                       by: Actor | None = None, **extra: Any) -> dict[str, Any]:
        body = {"project_id": project_id, "schema_id": schema_id, "name": unique("dataset"),
                "record_count": records, "types": types, **extra}
        return dict(self.call("POST", "/datasets/create", by or self.root, 201, json=body))

    def wait_dataset(self, dataset_id: int, timeout: float = 300.0, by: Actor | None = None) -> dict[str, Any]:
        """Poll until the dataset leaves queued/running (the API has no blocking wait)."""
        deadline = time.monotonic() + timeout
        while True:
            body = dict(self.call("GET", f"/datasets/{dataset_id}", by or self.root))
            if body["status"] not in ("queued", "running") or time.monotonic() > deadline:
                return body
            time.sleep(0.2)


def attach(page: Page, backend: str) -> None:
    _BACKEND_OF[page] = backend


def log_in(page: Page, username: str, password: str, otp: str | None = None) -> None:
    """Log in through the Log in page (which must be showing) and wait until it is gone."""
    expect(page.get_by_role("heading", name="Log in", level=1)).to_be_visible()
    page.get_by_role("textbox", name="Username", exact=True).fill(username)
    page.get_by_role("textbox", name="Password", exact=True).fill(password)
    if otp is not None:
        page.get_by_role("button", name="Log in").click()
        code = page.get_by_label("One-time code")
        expect(code).to_be_visible()
        code.fill(otp)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Log in", level=1)).to_have_count(0)


def open_app(page: Page, path: str, username: str = ADMIN_USERNAME, password: str = ADMIN_PASSWORD) -> None:
    """Open `path` signed in: through Log in (which brings the user back to `path`)."""
    page.goto(path)
    log_in(page, username, password)
    expect(page).to_have_url(re.compile(re.escape(path) + r"$"))


def stored_token(page: Page) -> str:
    token = page.evaluate(f"() => window.localStorage.getItem({json.dumps(TOKEN_KEY)})")
    assert isinstance(token, str) and token, "the page holds no session token"
    return token


def nav(page: Page, name: str) -> Locator:
    """A link of the main navigation."""
    return page.get_by_role("navigation", name="Main", exact=True).get_by_role("link", name=name, exact=True)


def heading(page: Page, name: str) -> None:
    """The page's h1 is its name (and it has rendered)."""
    expect(page.get_by_role("heading", name=name, level=1, exact=True)).to_be_visible()


def check_axe(page: Page, name: str) -> None:
    """Record the page's serious and critical axe-core violations as it is now. The test fails with
    all of them once its flow is through (conftest's pytest_runtest_call), so one run shows every
    page's problems and the flow's own result."""
    if not AXE_JS.is_file():
        pytest.fail(f"{AXE_JS} is missing: run `npm ci` in web/ (scripts/web_build_check.sh does)", pytrace=False)
    # the page at rest: the pointer off the control the test last clicked, no transition half-way
    # (a toast fading in has too little contrast for a moment)
    page.mouse.move(0, (page.viewport_size or DESKTOP)["height"] - 1)
    page.wait_for_function("""() => document.getAnimations().every((a) =>
        a.playState !== 'running' || a.effect?.getComputedTiming().iterations === Infinity)""")
    # evaluated over the DevTools protocol, so the app's Content-Security-Policy does not block it
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE_JS.read_text())
    result = page.evaluate("""async () => {
        const r = await window.axe.run(document, { resultTypes: ['violations'] });
        return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 5).map((n) => ({
                target: n.target.join(' '), html: n.html.slice(0, 160), summary: n.failureSummary })),
        }));
    }""")
    if result:
        lines = [f"axe-core: {len(result)} serious/critical violation(s) on {name} ({page.url}):"]
        for v in result:
            lines.append(f"- [{v['impact']}] {v['id']}: {v['help']}")
            lines.extend(f"    {n['html']}\n      {' '.join(n['summary'].split())}" for n in v["nodes"])
        _AXE_VIOLATIONS.setdefault(page, []).append("\n".join(lines))


def axe_violations(page: Page) -> list[str]:
    return _AXE_VIOLATIONS.get(page, [])


def screenshot(page: Page, name: str) -> None:
    """Full-page PNGs at 1280x800 and 390x844 under test-artifacts/screenshots/<backend>/."""
    folder = ARTIFACTS / "screenshots" / _BACKEND_OF.get(page, "unknown")
    folder.mkdir(parents=True, exist_ok=True)
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    size = page.viewport_size or DESKTOP
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=str(folder / f"{slug}-desktop.png"), full_page=True, animations="disabled")
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(folder / f"{slug}-phone.png"), full_page=True, animations="disabled")
    page.set_viewport_size(size)


def visit_check(page: Page, name: str) -> None:
    """Every page a test visits: axe-core check and screenshots at both sizes."""
    check_axe(page, name)
    screenshot(page, name)
