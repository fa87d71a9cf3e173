"""The page under its Content-Security-Policy: served with the policy, it works without breaking it,
and what the policy forbids is really blocked."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from tests.web.conftest import ServerThread, csp_violations
from tests.web.pages import come_in, type_line, wait_for_line


def test_the_page_is_served_with_its_policy_and_keeps_it(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """The page arrives with the security headers, connects its WebSocket, chats and seats a bot
    without one violation of the policy."""
    page = open_page()
    response = page.goto(server.url)
    assert response is not None
    headers = response.headers
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["referrer-policy"] == "no-referrer"
    come_in(page, "csp")
    type_line(page, "/join csp-room")
    page.locator("#app[data-state=waiting]").wait_for()
    type_line(page, "/addbot")
    type_line(page, "hello under the policy")
    wait_for_line(page, "hello under the policy")
    assert csp_violations(page) == []


def test_inline_script_is_blocked(open_page: Callable[..., Page]) -> None:
    """A script injected inline does not run and is reported as a violation (so a violation by the
    page itself would be seen)."""
    page = open_page()
    page.locator("#app").wait_for()
    ran = page.evaluate(
        """() => new Promise((resolve) => {
             window.injected = false;
             const s = document.createElement("script");
             s.textContent = "window.injected = true";
             document.body.append(s);
             setTimeout(() => resolve(window.injected), 100);
           })"""
    )
    assert ran is False
    violations = csp_violations(page)
    assert violations and violations[0].startswith("script-src")
    page.evaluate("window.cspViolations = []")  # expected here; the fixture checks for the rest
