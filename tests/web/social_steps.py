"""Steps the browser tests of accounts, profiles and the community share: come in with a password,
register, enter a room by name, and read what the page keeps in its storage."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page


def fill_account(page: Page, name: str, password: str) -> None:
    """Fill in the form's name and password (without choosing a button yet)."""
    page.locator("#name-dialog").wait_for()
    page.locator("#name-input").fill(name)
    page.locator("#password-input").fill(password)


def register(page: Page, name: str, password: str) -> None:
    """Register ``name`` with ``password`` from the form and wait until the server has taken it."""
    fill_account(page, name, password)
    page.locator("#register-btn").click()
    page.locator("#me", has_text=name).wait_for()
    page.locator("#log .line", has_text=f"{name} is registered").wait_for()


def log_in(page: Page, name: str, password: str) -> None:
    """Log in to a registered name and wait for the welcome."""
    fill_account(page, name, password)
    page.locator("#login-btn").click()
    page.locator("#me", has_text=name).wait_for()
    page.locator("#app[data-conn=connected]").wait_for()


def enter_room(page: Page, room: str, *, seat: bool = True) -> None:
    """From the lobby, take a seat in ``room`` (or watch it) and wait for its panel."""
    page.locator("#room-input").fill(room)
    page.locator(".panel.lobby button.primary" if seat else "[data-focus=watch]").click()
    page.locator(f'#room-name[data-room="{room}"]').wait_for()  # that room, not one whose name holds it


def stored(page: Page) -> str:
    """Everything the page keeps in its local and session storage, as one text."""
    text: str = page.evaluate(
        """() => [localStorage, sessionStorage]
             .flatMap((s) => Object.keys(s).map((k) => `${k}=${s.getItem(k)}`)).join("\\n")"""
    )
    return text
