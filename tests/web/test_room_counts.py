"""How a room's game counts, said where everyone sees it: a chosen seed shows as chosen to all and
makes a practice game, emptied it is random again; a rated game says so before the start, and its
result shows each rating before and after, in the panel and the chat."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from tests.web.conftest import DESKTOP, PHONE
from tests.web.pages import come_in, type_line, wait_for_line
from tests.web.social_steps import enter_room, register

PASSWORD = "cortado-macchiato"


def test_a_chosen_seed_shows_to_everyone_and_clearing_it_makes_it_random(
    open_page: Callable[..., Page],
) -> None:
    """The host types a seed: both pages show it as chosen and the room as a practice game;
    the host empties the field: the seed is random again and the badge goes."""
    host, other = open_page(DESKTOP), open_page(PHONE)
    come_in(host, "seeder")
    come_in(other, "seedwatch")
    enter_room(host, "seed-room")
    enter_room(other, "seed-room")
    host.locator(".seats li.taken").nth(1).wait_for()
    host.locator("#opt-seed").fill("4242")
    host.locator("#opt-seed").press("Tab")
    for page in (host, other):
        page.locator(".badge.kind.practice").wait_for()
        assert page.locator("#opt-seed").input_value() == "chosen (secret)"
    host.locator("#opt-seed").fill("")
    host.locator("#opt-seed").press("Tab")
    wait_for_line(host, "random")
    for page in (host, other):
        page.locator(".badge.kind.practice").wait_for(state="detached")
        assert page.locator("#opt-seed").input_value() == ""
    type_line(host, "/info")
    info = host.locator("#log pre.info").last
    info.wait_for()
    assert "4242" not in info.inner_text()


def test_a_rated_game_says_so_and_its_result_shows_the_ratings(open_page: Callable[..., Page]) -> None:
    """Two registered players: the waiting room says "rated game" (the view's ``rated``, asked of
    no profile); at the end the result panel has a rating column (before → after) and the chat's
    line says them too; after a reload the panel shows the ratings again, from the snapshot."""
    ann, bob = open_page(), open_page()
    register(ann, "ratedann", PASSWORD)
    register(bob, "ratedbob", PASSWORD)
    ann.route("**/api/players/**", lambda route: route.abort())  # the page reads the view alone
    enter_room(ann, "counted-room")
    ann.locator("#opt-absent").select_option("drop")
    enter_room(bob, "counted-room")
    ann.locator(".seats li.taken").nth(1).wait_for()
    ann.locator(".badge.kind.rated").wait_for()
    ann.locator("[data-focus=start]").click()
    bob.locator("#app[data-state=playing]").wait_for()
    type_line(bob, "/stand")
    panel = ann.locator(".panel.result")
    panel.wait_for()
    cell = panel.locator("tr[data-player=ratedann] td.rating")
    cell.wait_for()
    assert "→" in cell.inner_text()
    assert panel.locator(".badge.kind.rated").count() == 1
    line = ann.locator("#log .line.over").last
    assert "ratedann" in line.inner_text() and "→" in line.inner_text()
    shown = cell.inner_text()
    ann.reload()
    again = ann.locator(".panel.result tr[data-player=ratedann] td.rating")
    again.wait_for()
    assert again.inner_text() == shown
    assert ann.locator(".panel.result .badge.kind.rated").count() == 1


def test_a_guests_game_is_casual_and_the_option_boxes_line_up(open_page: Callable[..., Page]) -> None:
    """Guests alone play a casual game, said so; the options' check boxes start where the other
    options' words start."""
    page = open_page(DESKTOP)
    come_in(page, "casualguest")
    enter_room(page, "casual-room")
    type_line(page, "/addbot")
    page.locator(".seats li.taken").nth(1).wait_for()
    page.locator(".badge.kind.casual").wait_for()
    lefts = page.evaluate(
        """() => [...document.querySelectorAll('.options > label')].map((l) =>
             Math.round((l.querySelector('input[type=checkbox]') ?? l).getBoundingClientRect().left))"""
    )
    assert len(set(lefts)) == 1, lefts
