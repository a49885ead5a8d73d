"""Polish found by a first-time user (issue 33 item 6): no "Connection lost" flash on page load (but
the banner when the server is really gone), dataset cards at phone width, a readable "Failed" badge,
Cancel on a running dataset, the two-factor step as a step, the Projects menu's name, a key typed
while it closes, and the project list's tags and tenant."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.web.browser.helpers import Rest, heading, nav, open_app

# every "Connection lost" alert the page shows, however briefly, is counted by a MutationObserver
# installed before the app's own scripts run (a flash would be gone before any expect saw it)
WATCH_BANNER = """
window.__connectionLost = 0;
window.__socketCloses = [];
const NativeSocket = window.WebSocket;
window.WebSocket = class extends NativeSocket {
  constructor(...args) {
    super(...args);
    this.addEventListener('close', (e) => window.__socketCloses.push(e.code + ' ' + e.reason));
    // graphql-ws parses text frames only: a binary frame closed the socket (4004) on its ack
    this.addEventListener('message', (e) => {
      if (typeof e.data !== 'string') window.__socketCloses.push('binary frame');
    });
  }
};
new MutationObserver(() => {
  for (const el of document.querySelectorAll('[role="alert"]')) {
    if (el.textContent.includes('Connection lost') && !el.dataset.counted) {
      el.dataset.counted = '1';
      window.__connectionLost += 1;
    }
  }
}).observe(document, { subtree: true, childList: true });
"""


def test_no_connection_lost_flash_on_load(page: Page, rest: Rest) -> None:
    page.add_init_script(WATCH_BANNER)
    open_app(page, "/")
    heading(page, "Dashboard")
    for path, name in (("/projects", "Projects"), ("/", "Dashboard")):
        page.goto(path)
        heading(page, name)
        page.wait_for_timeout(1500)
        closes = page.evaluate("() => window.__socketCloses")
        assert page.evaluate("() => window.__connectionLost") == 0, f"banner flashed on {path}; closes {closes}"
        assert closes == [], f"the live-updates socket closed on {path}: {closes}"

    # the server really out of reach: the banner shows, and goes once it answers again
    page.context.set_offline(True)
    nav(page, "Projects").click()
    expect(page.get_by_role("alert").filter(has_text="Connection lost")).to_be_visible()
    page.context.set_offline(False)
    nav(page, "Dashboard").click()
    heading(page, "Dashboard")
    expect(page.get_by_role("alert").filter(has_text="Connection lost")).to_have_count(0)
