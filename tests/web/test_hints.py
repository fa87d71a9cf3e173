"""The Hint button on the page: offered on your turn in a practice or casual game, and in a rated
game (two registered players or more, a seed the room did not choose), where the server refuses
hints, not offered, with a short note saying why."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from tests.web.pages import my_turn, type_line, wait_for_line, wait_until
from tests.web.social_steps import enter_room, fill_account, register

PASSWORD = "ristretto-lungo"


def _start(host: Page, other: Page, room: str, *, seed: bool = False) -> Page:
    """``host`` and ``other`` take seats in ``room`` (the host choosing a seed if asked), the host
    starts, and the page whose turn it is comes back."""
    enter_room(host, room)
    if seed:
        type_line(host, "/option seed 7")
        wait_for_line(host, "chose a seed")
    enter_room(other, room)
    host.locator(".seats li.taken").nth(1).wait_for()
    host.locator("[data-focus=start]").click()
    other.locator("#app[data-state=playing]").wait_for()
    wait_until(host, lambda: my_turn(host) or my_turn(other))
    return host if my_turn(host) else other


def test_a_rated_game_offers_no_hint_and_says_why(open_page: Callable[..., Page]) -> None:
    """Two registered players, no seed chosen: on the mover's turn the Hint button is gone and the
    note "No hints in a rated game" stands in its place, as the server refuses ``/hint`` there; the
    other player, not to move, sees neither."""
    ann, bob = open_page(), open_page()
    register(ann, "hintann", PASSWORD)
    register(bob, "hintbob", PASSWORD)
    mover = _start(ann, bob, "hint-rated")
    waiter = bob if mover is ann else ann
    mover.locator("#app[data-rated=yes]").wait_for()
    note = mover.locator("#no-hints")
    assert note.is_visible()
    assert note.inner_text() == "No hints in a rated game"
    assert mover.locator("#hint-btn").is_hidden()
    assert waiter.locator("#no-hints").is_hidden() and waiter.locator("#hint-btn").is_hidden()
    type_line(mover, "/hint")
    wait_for_line(mover, "No hints in a rated game: hints are for practice and casual games.")
    assert mover.locator("#hint-btn").is_hidden()


def test_a_casual_game_of_an_account_and_a_guest_offers_the_hint(open_page: Callable[..., Page]) -> None:
    """One registered player and a guest: a casual game. On the mover's turn the Hint button is
    there (the view says the game is not rated), without the note, and gives a hint."""
    reg, gus = open_page(), open_page()
    register(reg, "hintreg", PASSWORD)
    fill_account(gus, "hintgus", "")
    gus.locator("#guest-btn").click()
    gus.locator("#me", has_text="hintgus").wait_for()
    mover = _start(reg, gus, "hint-casual")
    mover.locator("#app[data-legal=ready]").wait_for()
    mover.locator("#app[data-rated=no]").wait_for()
    mover.locator("#hint-btn").wait_for(state="visible")
    assert mover.locator("#no-hints").is_hidden()
    mover.locator("#hint-btn").click()
    mover.locator("#log .line", has_text="Hint: ").wait_for()


def test_a_practice_game_of_two_accounts_offers_the_hint(open_page: Callable[..., Page]) -> None:
    """Two registered players in a room that chose its seed: a practice game, with the Hint."""
    ann, bob = open_page(), open_page()
    register(ann, "hintpra", PASSWORD)
    register(bob, "hintprb", PASSWORD)
    mover = _start(ann, bob, "hint-practice", seed=True)
    mover.locator("#app[data-legal=ready]").wait_for()
    assert mover.locator("#app").get_attribute("data-rated") == "no"
    mover.locator("#hint-btn").wait_for(state="visible")
    assert mover.locator("#no-hints").is_hidden()
    mover.locator("#hint-btn").click()
    mover.locator("#log .line", has_text="Hint: ").wait_for()
