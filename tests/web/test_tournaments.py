"""The page's Tournaments tab: the list from the API, joining with a click, the live standings
of one tournament, and its games with a link to each replay once they ended."""

from __future__ import annotations

import time
from collections.abc import Callable

from playwright.sync_api import Page

from server.app import Server
from tests.web.conftest import ServerThread
from tests.web.pages import come_in, type_line, wait_for_line

PASSWORD = "tourneypass1"


def _start_now(server: Server) -> None:
    """The director's clock a minute on: the tournament starts at its next look."""
    server.tournaments.clock = lambda: time.time() + 61
    server.tournaments.poke()


def test_a_tournament_is_joined_followed_and_its_game_replayed_from_the_tab(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """thost makes a Swiss of one round at tables of 2 from the chat; tguest finds it in the
    Tournaments tab and joins with its button, which then offers to leave; the standings list
    both. Once it starts and tguest leaves the game, the standings give thost the point and the
    game links to its replay."""
    host, guest = open_page(), open_page()
    come_in(host, "thost")
    come_in(guest, "tguest")
    type_line(host, f"/register {PASSWORD} {PASSWORD}")
    wait_for_line(host, "registered")
    type_line(host, "/tournament new webcup swiss 1 size 2 start +1m")
    wait_for_line(host, "Tournament webcup is made")

    guest.locator("#tab-tournaments").click()
    row = guest.locator("#tournament-list li.tournament[data-name=webcup]")
    row.wait_for()
    assert "Swiss, 1 rounds, tables of 2" in row.inner_text()
    row.get_by_role("button", name="Join").click()
    row.get_by_role("button", name="Leave").wait_for()  # (the list says who is in)
    row.locator("button.tournament-name").click()
    standings = guest.locator("#tournament-detail table.standings tbody tr")
    guest.locator("#tournament-detail table.standings tbody tr", has_text="tguest").wait_for()
    assert standings.count() == 2

    server.call(_start_now)
    guest.locator("#tournament-detail .tournament-tables button", has_text="Watch").wait_for()
    guest.locator("#app[data-state=playing]").wait_for()
    guest.locator("#tab-chat").click()
    type_line(guest, "/leave")  # the tournament's rooms drop who leaves: thost wins the game
    guest.locator("#tab-tournaments").click()
    guest.locator("#tournament-detail .small-print", has_text="over: thost won").wait_for(timeout=20_000)
    first = guest.locator("#tournament-detail table.standings tbody tr").first
    assert "thost" in first.inner_text() and "1" in first.inner_text()
    replay = guest.locator("#tournament-detail .tournament-tables a", has_text="Replay")
    href = replay.get_attribute("href") or ""
    assert href.startswith("/games/") and len(href) > len("/games/")
