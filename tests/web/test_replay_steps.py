"""The replay viewer steps easily: its buttons stay where they are whatever the move's words, are
drawn as icons every font has, the arrow keys step without scrolling the page, move numbers from
10 show whole, and autoplay steps by itself."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from tests.web.conftest import PHONE, ServerThread
from tests.web.pages import come_in, move_number, type_line, wait_until


def answered(page: Page, played: int) -> Callable[[], bool]:
    """Whether a move came after move ``played``: the bot's answer (or the end)."""
    return lambda: move_number(page) > played or page.locator("#app[data-state=over]").count() > 0


def _finished_game(page: Page, server: ServerThread, room: str) -> str:
    """A game of a few moves between the page's player and a bot, ended by the player leaving."""
    page.locator("#room-input").fill(room)
    page.locator(".panel.lobby button.primary").click()
    page.locator(".panel.waiting").wait_for()
    page.locator("#opt-absent").select_option("drop")
    type_line(page, "/addbot")
    page.locator(".seats li.taken").nth(1).wait_for()
    type_line(page, "/start")
    page.locator("#app[data-state=playing]").wait_for()
    for _ in range(6):
        page.locator("#app[data-turn=mine][data-legal=ready]").wait_for(timeout=30_000)
        type_line(page, "/hint")
        page.locator("#confirm:not([disabled])").wait_for()
        mine = move_number(page) + 1
        page.locator("#confirm").click()
        wait_until(page, answered(page, mine))  # the bot's answer too
    type_line(page, "/stand")
    page.locator(".panel.result").wait_for()
    game_id: str = server.call(lambda s: s.lobby.rooms[room].core.game.game_id)  # type: ignore[union-attr]
    return game_id


def test_the_replay_steps_with_still_buttons_keys_and_autoplay(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """Forward keeps its place as the words change; ⏮ ⏭ are SVG icons, and one move forward is
    drawn unlike Play; ArrowRight steps and the page does not scroll; "10." shows whole in the
    list; Play steps by itself."""
    page = open_page(PHONE)
    come_in(page, "stepper")
    game_id = _finished_game(page, server, "steps-room")
    page.goto(f"{server.url}games/{game_id}")
    page.locator("#replay[data-step='0']").wait_for()
    for button in ("#first", "#back", "#play", "#forward", "#last"):
        assert page.locator(f"{button} svg.icon").count() >= 1, button
        assert page.locator(button).inner_text().strip() == ""
    assert page.locator("#forward svg").inner_html() != page.locator("#play svg.play").inner_html()
    places = set()
    for step in range(1, 5):
        box = page.locator("#forward").bounding_box()
        assert box is not None
        places.add((round(box["x"]), round(box["y"])))
        page.locator("#forward").click()
        page.locator(f"#replay[data-step='{step}']").wait_for()
    assert len(places) == 1, places
    page.evaluate("window.scrollTo(0, 0)")
    page.locator("#forward").focus()
    page.keyboard.press("ArrowRight")
    page.locator("#replay[data-step='5']").wait_for()
    assert page.evaluate("window.scrollY") == 0
    tenth = page.locator("#moves li").nth(9)
    marker_room = page.evaluate(
        """() => { const ol = document.getElementById('moves');
             return parseFloat(getComputedStyle(ol).paddingLeft); }"""
    )
    assert tenth.count() == 1 and marker_room >= 30, marker_room
    page.locator("#first").click()
    page.locator("#play").click()
    page.locator("#replay[data-step='2']").wait_for(timeout=6_000)
    assert page.locator("#play").get_attribute("aria-pressed") == "true"
    page.locator("#play").click()
    assert page.locator("#play").get_attribute("aria-pressed") == "false"
