"""Browser tests: Debian's chromium driven by Playwright against a real `tdg serve` per database.

One server per backend for the whole session (tests make their own users and projects with unique
names), one browser for the session, a fresh browser context (no shared session) per test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, Playwright, expect, sync_playwright

from tests.conftest import BACKENDS
from tests.web.browser.helpers import ARTIFACTS, DESKTOP, Rest, attach, axe_violations
from tests.web.browser.server import Server, database, running_server

CHROMIUM = os.environ.get("TDG_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--headless=new", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
TIMEOUT_MS = 15_000

expect.set_options(timeout=TIMEOUT_MS)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report = yield
    setattr(item, f"rep_{report.when}", report)
    server = getattr(item, "funcargs", {}).get("server")
    axe_only = call.excinfo is not None and str(call.excinfo.value).startswith("axe-core:")
    if report.failed and isinstance(server, Server) and not axe_only:
        report.sections.append((f"tdg serve log ({server.backend}, last lines)", server.log_tail()))
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """A flow that went through still fails on the accessibility problems of the pages it visited."""
    yield
    pages = [v for v in getattr(item, "funcargs", {}).values() if isinstance(v, Page)]
    found = [v for page in pages for v in axe_violations(page)]
    if found:
        pytest.fail("\n\n".join(found), pytrace=False)


# package scope, not session: sync Playwright keeps an event loop running in this thread while it
# lives, which would stop every async test collected after this folder (pytest-asyncio's Runner)
# the browser drives the interface, not the database: one `tdg serve` on the embedded default
# (SQLite) is enough, since every API test runs on both databases. TDG_BROWSER_BACKENDS=sqlite,postgresql
# runs the pages on each
BROWSER_BACKENDS = [b for b in os.environ.get("TDG_BROWSER_BACKENDS", "sqlite").split(",") if b in BACKENDS] \
    or BACKENDS[:1]


@pytest.fixture(scope="package", params=BROWSER_BACKENDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    workdir = tmp_path_factory.mktemp(f"serve-{request.param}")
    with database(request.param, workdir) as url, running_server(request.param, url, workdir) as srv:
        yield srv
        if srv.process.poll() is not None:
            pytest.fail(f"tdg serve ({srv.backend}) died during the tests:\n{srv.log_tail()}")


@pytest.fixture(scope="package")
def playwright() -> Iterator[Playwright]:
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"{CHROMIUM} is missing: scripts/services.sh installs Debian's chromium", pytrace=False)
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="package")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture
def rest(server: Server) -> Iterator[Rest]:
    client = Rest(server)
    yield client
    client.close()


def _new_page(browser: Browser, server: Server) -> Page:
    context = browser.new_context(base_url=server.url, viewport=DESKTOP, accept_downloads=True)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    attach(page, server.backend)
    return page


@pytest.fixture
def other_page(browser: Browser, server: Server) -> Iterator[Page]:
    """A second browser (its own context: no shared session) for a second user."""
    page = _new_page(browser, server)
    yield page
    page.context.close()


@pytest.fixture
def page(request: pytest.FixtureRequest, browser: Browser, server: Server) -> Iterator[Page]:
    page = _new_page(browser, server)
    yield page
    call = getattr(request.node, "rep_call", None)
    if call is not None and call.failed:
        folder = ARTIFACTS / "failures" / server.backend
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"{request.node.name}.png"), full_page=True)
    page.context.close()
