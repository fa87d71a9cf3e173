"""The page's "Play now" button: quick pairing from the header, in a real browser."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from server.lobby.pairing import BOTS_AFTER
from tests.web.conftest import ServerThread
from tests.web.pages import come_in, type_line, wait_for_line


def test_play_now_seats_two_pages_at_one_table(open_page: Callable[..., Page], server: ServerThread) -> None:
    """pnann and pnbob each press Play now (which then offers to stop seeking); after a few
    seconds without a third they are seated together in a new room, told so in the chat, and
    the button is gone while they play."""
    ann, bob = open_page(), open_page()
    come_in(ann, "pnann")
    come_in(bob, "pnbob")
    for page in (ann, bob):
        button = page.locator("#play-now")
        assert button.inner_text() == "Play now"
        button.click()
        page.locator("#play-now[aria-pressed=true]", has_text="Stop seeking").wait_for()
        wait_for_line(page, "Looking for a game")
    for page in (ann, bob):
        wait_for_line(page, "Your table is ready in room seek-")
        page.locator("#app[data-state=playing]").wait_for(timeout=20_000)
        # seated in a running game: no seeking until it is played (already_playing)
        page.locator("#play-now[aria-pressed=false]").wait_for(state="hidden")
    room = ann.locator("#room-name").inner_text()
    assert room.startswith("room seek-") and room == bob.locator("#room-name").inner_text()


def test_stop_seeking_takes_the_page_out_of_the_queue(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """Pressing the button again while seeking sends unseek: the button reads Play now again and
    the server's queue no longer holds the name."""
    page = open_page()
    come_in(page, "pncid")
    page.locator("#play-now").click()
    page.locator("#play-now[aria-pressed=true]").wait_for()
    page.locator("#play-now").click()
    page.locator("#play-now[aria-pressed=false]", has_text="Play now").wait_for()
    queued = server.call(lambda s: list(getattr(s.lobby.seeks.queue, "seeks", {"?": None})))
    assert "pncid" not in queued and "?" not in queued


def test_seeking_alone_for_half_a_minute_says_how_to_play_the_bots(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """A lone seeker is told after 30 seconds that the server's bots are a /seek bots away; typing
    it seats them with a bot at once (the seek replaced keeps its place in the queue)."""
    page = open_page()
    page.clock.install()
    page.reload()
    come_in(page, "pnlone")
    page.locator("#play-now").click()
    wait_for_line(page, "Looking for a game")
    page.clock.fast_forward("00:20")
    page.locator("#play-now[aria-pressed=true]").wait_for()
    assert page.locator("#log .line", has_text="Nobody else is looking").count() == 0
    page.clock.fast_forward("00:11")
    wait_for_line(page, "Nobody else is looking for a game just now. Keep waiting, or type /seek bots")
    # (the page's clock ran 31 s ahead, the server's did not: its 30 s for bots are spared here)
    server.call(lambda s: setattr(s.lobby.seeks, "bots_after", 0))
    try:
        type_line(page, "/seek bots")
        wait_for_line(page, "Your table is ready in room seek-")
    finally:
        server.call(lambda s: setattr(s.lobby.seeks, "bots_after", BOTS_AFTER))
    page.locator("#app[data-state=playing]").wait_for(timeout=20_000)
