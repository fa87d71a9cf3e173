"""The Hint button on the page: offered on your turn in a practice or casual game, and in a rated
game (two registered players or more, a seed the room did not choose), where the server refuses
hints, not offered, with a short note saying why."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
    there once the seats are looked up, without the note, and gives a hint."""
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


#: ``RatedGame`` with look-ups that answer from a table: what it says of a view as the answers come
RATED = """async ([accounts, view]) => {
  const { RatedGame } = await import("/rated.js");
  let redraws = 0;
  const lookup = async (name) => accounts[name] ?? false;
  const rated = new RatedGame({ lookup, onChange: () => { redraws += 1; } });
  const first = rated.of(view);
  await new Promise((resolve) => setTimeout(resolve, 0));
  const answered = rated.of(view);
  rated.refusedIn(view.room);
  const refused = rated.of(view);
  rated.reset();
  const afresh = rated.of(view);
  return { first, answered, refused, afresh, redraws };
}"""


def _view(seats: list[str], seed: str | None = None, over: str | None = None) -> dict[str, Any]:
    return {
        "room": "r",
        "seats": [{"name": n, "kind": "person", "connected": True} for n in seats],
        "options": {"seed": seed},
        "game": {"over": over},
    }


def test_the_page_reads_a_game_as_rated_as_the_server_does(open_page: Callable[..., Page]) -> None:
    """The page's reading (``rated.js``): unknown while the seats are looked up, then rated with
    two accounts seated and no chosen seed; not rated with one account, a chosen seed or a game
    over; a ``no_hints`` from the server makes it rated until the next game."""
    page = open_page()
    two = page.evaluate(RATED, [{"a": True, "b": True}, _view(["a", "b", "g"])])
    assert (two["first"], two["answered"], two["refused"], two["afresh"]) == (None, True, True, None)
    assert two["redraws"] >= 3
    one = page.evaluate(RATED, [{"a": True}, _view(["a", "g"])])
    assert (one["first"], one["answered"], one["refused"], one["afresh"]) == (None, False, True, None)
    practice = page.evaluate(RATED, [{"a": True, "b": True}, _view(["a", "b"], seed="set")])
    assert (practice["first"], practice["answered"], practice["refused"]) == (False, False, True)
    over = page.evaluate(RATED, [{"a": True, "b": True}, _view(["a", "b"], over="deck")])
    assert (over["first"], over["answered"], over["refused"]) == (False, False, False)
