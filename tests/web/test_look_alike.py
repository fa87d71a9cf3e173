"""Look-alike and reserved names on the web page: the form says why the name was refused and
takes another."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from tests.web.social_steps import fill_account


def _come_in(page: Page, name: str) -> None:
    fill_account(page, name, "")
    page.locator("#guest-btn").click()


def test_a_reserved_or_look_alike_name_is_refused_in_the_form(open_page: Callable[..., Page]) -> None:
    """``ADMlN`` is kept for the server and ``rnia`` looks like ``mia``, who is here: each is
    refused in the form, which stays open for another name."""
    mia = open_page()
    _come_in(mia, "mia")
    mia.locator("#me", has_text="mia").wait_for()
    page = open_page()
    _come_in(page, "ADMlN")
    page.locator("#name-error", has_text="kept for the server").wait_for()
    assert page.locator("#name-dialog").is_visible()
    _come_in(page, "rnia")
    page.locator("#name-error", has_text="looks like the name of someone here").wait_for()
    _come_in(page, "carla")
    page.locator("#me", has_text="carla").wait_for()
    assert not page.locator("#name-dialog").is_visible()
