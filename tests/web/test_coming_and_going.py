"""Coming in and going: no socket before the newcomer chooses (nothing times out while they read),
Log out and Switch account forget the token on this browser, /quit too, the Register dialog of a
guest can be closed, and a login shows the account's own spelling of its name."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from tests.web.conftest import DESKTOP, PHONE
from tests.web.pages import come_in, type_line
from tests.web.social_steps import fill_account, register, stored

PASSWORD = "ristretto-lungo"


def test_the_page_opens_no_socket_until_the_newcomer_chooses(open_page: Callable[..., Page]) -> None:
    """While the welcome form is read nothing connects (so the server's hello time cannot run
    out and the header never turns red); Come in opens the socket."""
    page = open_page(DESKTOP)
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.locator("#name-dialog").wait_for()
    page.wait_for_timeout(600)
    assert sockets == []
    assert page.locator("#app").get_attribute("data-conn") == "idle"
    assert page.locator("#reconnect").is_hidden()
    come_in(page, "reader")
    assert len(sockets) == 1


def test_log_out_forgets_the_token_and_a_reload_asks_for_a_name(open_page: Callable[..., Page]) -> None:
    """Log out (from the name's menu) lets the name go: the form asks for a name, the browser keeps
    no token, and a reload asks again instead of coming back in."""
    page = open_page(PHONE)
    come_in(page, "leaver")
    assert "cafe.token=" in stored(page)
    page.locator("#me").click()
    page.locator("#logout-btn").click()
    page.locator("#name-dialog").wait_for()
    assert page.locator("#name-input").input_value() == ""
    assert "cafe.token=" not in stored(page) and "cafe.name=" not in stored(page)
    page.reload()
    page.locator("#name-dialog").wait_for()
    page.wait_for_timeout(300)
    assert page.locator("#me").inner_text() == ""
    come_in(page, "leaver")  # the name was let go at once


def test_quit_and_switch_account_log_out_too(open_page: Callable[..., Page]) -> None:
    """/quit typed in the chat and Switch account forget the token the same way."""
    page = open_page(DESKTOP)
    come_in(page, "quitter")
    type_line(page, "/quit")
    page.locator("#name-dialog").wait_for()
    assert "cafe.token=" not in stored(page)
    come_in(page, "switcher2")
    page.locator("#me").click()
    page.locator("#switch-btn").click()
    page.locator("#name-dialog").wait_for()
    assert "cafe.token=" not in stored(page)
    come_in(page, "switched")


def test_the_register_dialog_of_a_guest_closes_with_escape_and_cancel(open_page: Callable[..., Page]) -> None:
    """Opened from the header, the dialog's first button is Register (not Come in); Esc closes it,
    and so does Cancel; the guest stays in."""
    page = open_page(DESKTOP)
    come_in(page, "undecided")
    page.locator("#register-open").click()
    dialog = page.locator("#name-dialog")
    dialog.wait_for()
    assert page.locator("#login-btn").is_hidden() and page.locator("#register-btn").is_visible()
    page.keyboard.press("Escape")
    dialog.wait_for(state="hidden")
    page.locator("#register-open").click()
    dialog.wait_for()
    page.locator("#form-cancel").click()
    dialog.wait_for(state="hidden")
    assert page.locator("#me").inner_text() == "undecided"
    assert page.locator("#app").get_attribute("data-conn") == "connected"


def test_a_login_shows_the_accounts_own_spelling(open_page: Callable[..., Page]) -> None:
    """Registered as "Anya", logging in as "anya" shows "Anya" in the header and the lobby."""
    first = open_page()
    register(first, "Anya", PASSWORD)
    first.locator("#me").click()
    first.locator("#logout-btn").click()
    first.locator("#name-dialog").wait_for()
    page = open_page()
    fill_account(page, "anya", PASSWORD)
    page.locator("#login-btn").click()
    page.locator("#app[data-conn=connected]").wait_for()
    page.locator(".panel.lobby h2").wait_for()
    assert page.locator("#me").inner_text() == "Anya"
    assert page.locator(".panel.lobby h2").inner_text() == "Welcome, Anya!"
