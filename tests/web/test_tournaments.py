"""The page's Tournaments tab: the list from the API, joining with a click, the live standings
of one tournament, and its games with a link to each replay once they ended."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from playwright.sync_api import Page

from server.app import Server
from server.tournament.views import FINISHED_TABLES
from tests.server.test_tournament_scale import MADE, _arena_of_a_thousand_tables
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
    assert "Swiss, 1 round, tables of 2" in row.inner_text()
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


def test_the_tab_says_how_many_games_a_long_tournament_had(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """An arena of a thousand tables (written into the store): its detail lists the games the
    server answers with, headed by how many of them it made in all."""
    page = open_page()
    come_in(page, "chost")
    type_line(page, f"/register {PASSWORD} {PASSWORD}")
    wait_for_line(page, "registered")
    type_line(page, "/tournament new churn arena 720 size 2 start +10m")
    wait_for_line(page, "Tournament churn is made")
    row = page.locator("#tournament-list li.tournament[data-name=churn]")
    page.locator("#tab-tournaments").click()
    number = int(row.locator("button.tournament-name").get_attribute("data-id") or 0)
    written = server.call(lambda s: asyncio.ensure_future(_arena_of_a_thousand_tables(s, number)))
    deadline = time.monotonic() + 10
    while not written.done():
        assert time.monotonic() < deadline, "the tables were not written"
        time.sleep(0.05)
    written.result()

    row.locator("button.tournament-name").click()
    heading = page.locator("#tournament-detail h4")
    heading.filter(has_text="of 1000").wait_for()
    shown = 2 + FINISHED_TABLES
    assert heading.inner_text() == f"Games (the latest {shown} of {MADE})"
    assert page.locator("#tournament-detail .tournament-tables li").count() == shown
