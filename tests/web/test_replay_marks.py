"""The replay marks the moves the server played for their player, as the live list of moves does:
the record keeps them, so the replay of a finished game shows which move the clock played."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from tests.web.conftest import DESKTOP, ServerThread
from tests.web.pages import come_in, type_line, wait_for_line
from tests.web.social_steps import enter_room


def test_the_replay_marks_the_move_the_clock_played(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """A player lets the five-second clock run out once against a bot, then leaves the game; the
    replay's list of moves marks that move "the clock ran out", and only that one."""
    page = open_page(DESKTOP)
    come_in(page, "clockreplayer")
    enter_room(page, "clock-replay")
    page.locator(".panel.waiting").wait_for()
    page.locator("#opt-absent").select_option("drop")
    type_line(page, "/option clock 5")
    wait_for_line(page, "5")
    type_line(page, "/addbot")
    page.locator(".seats li.taken").nth(1).wait_for()
    type_line(page, "/start")
    page.locator("#app[data-state=playing]").wait_for()
    page.locator("#history li[data-auto=clock]").wait_for(timeout=30_000)
    type_line(page, "/stand")
    page.locator(".panel.result").wait_for()
    game_id: str = server.call(lambda s: s.lobby.rooms["clock-replay"].core.game.game_id)  # type: ignore[union-attr]
    page.goto(f"{server.url}games/{game_id}")
    page.locator("#moves li").first.wait_for()
    marked = page.locator("#moves li[data-auto]")
    assert marked.count() == 1
    assert marked.first.get_attribute("data-auto") == "clock"
    assert "the clock ran out" in marked.first.inner_text()
