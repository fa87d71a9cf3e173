"""What a person does on the web page, as steps for the browser tests: come in with a name, type
a line into the chat, play a move by pointing (or by keyboard), and read what the page shows."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

#: how long a test waits for a game to be played out before it gives up (a hang guard, not a measure)
GAME_DEADLINE = 120.0


def come_in(page: Page, name: str) -> None:
    """Give a name in the welcome dialog and wait until the server has welcomed it."""
    page.locator("#name-input").fill(name)
    page.locator("#login-btn").click()
    page.locator("#me", has_text=name).wait_for()
    page.locator("#app[data-conn=connected]").wait_for()


def type_line(page: Page, text: str) -> None:
    """Type one line into the chat input and press Enter."""
    page.locator("#input").fill(text)
    page.locator("#input").press("Enter")


def wait_for_line(page: Page, text: str) -> None:
    """Wait until a line containing ``text`` shows in the chat pane."""
    page.locator("#log .line", has_text=text).first.wait_for()


def move_number(page: Page) -> int:
    value = page.locator("#app").get_attribute("data-move-number")
    return int(value) if value else 0


def is_over(page: Page) -> bool:
    return page.locator("#app").get_attribute("data-state") == "over"


def my_turn(page: Page) -> bool:
    return page.locator("#app").get_attribute("data-turn") == "mine"


def hand(page: Page) -> list[str]:
    """The cards the page shows in the hand, in order."""
    return [c.get_attribute("data-card") or "" for c in page.locator("#hand .card").all()]


def play_by_clicking(page: Page) -> str:
    """Play one move by pointing: a card whose guest can sit at a chair (else the bar or a joker
    exchange), the first lit chair, a joker's nation when asked, a second card when the first
    needs one, then Play. Returns the move the Play button was to play (its notation)."""
    page.locator("#app[data-legal=ready]").wait_for()
    before = move_number(page)
    while page.locator("#confirm").is_disabled():
        cards = page.locator("#hand .card.playable")
        chosen = False
        for i in range(cards.count()):
            cards.nth(i).click()
            if page.locator("#board .chair.target:not(.swap)").count():
                page.locator("#board .chair.target:not(.swap)").first.click()
                chosen = True
                break
            cards.nth(i).click()  # choose it again to put it back
        if not chosen:
            cards.first.click()
            page.locator("#board .target").first.click()
        if page.locator("#nation-choice").is_visible():
            page.locator("#nation-choice button").first.click()
    move = page.locator("#confirm").get_attribute("data-move") or ""
    page.locator("#confirm").click()
    page.wait_for_function("(n) => Number(document.getElementById('app').dataset.moveNumber) > n", arg=before)
    return move


def wait_for_turn(page: Page, names: list[str]) -> None:
    """Wait until the page shows that one of ``names`` is to move, or that the game is over."""
    page.wait_for_function(
        """(names) => { const app = document.getElementById('app');
             return app.dataset.state === 'over' || names.includes(app.dataset.toMove); }""",
        arg=names,
    )


def wait_until(page: Page, condition: Callable[[], bool], deadline: float = 30.0) -> None:
    """Poll ``condition()`` (letting the page run) until it holds; fail after ``deadline`` seconds."""
    end = time.monotonic() + deadline
    while not condition():
        if time.monotonic() > end:
            raise AssertionError("the page did not reach the expected state in time")
        page.wait_for_timeout(40)
