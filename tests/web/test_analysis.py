"""The analysis in the replay viewer: a chart of each player's score (a line each) whose points go
to their move, each move's mark and cost in the list, the best move as a ghost on the board, the
keys ← → Home End, in German too, and on a phone."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest
from websockets.sync.client import connect

from tests.web.conftest import PHONE, ServerThread
from tests.web.live_steps import play_a_move_and_wait_for_the_bot, seat_with_bot
from tests.web.pages import type_line

if TYPE_CHECKING:
    from playwright.sync_api import Page


def _finished(server: ServerThread, name: str) -> str:
    """The id of ``name``'s last game, once it is over."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        games = server.call(lambda s: s.store.games_named(name))  # type: ignore[attr-defined]
        if games and games[0].result is not None:
            return str(games[0].game_id)
        time.sleep(0.1)
    raise AssertionError(f"{name}'s game did not end")


def _analyse(server: ServerThread, game_id: str, asker: str) -> None:
    """Ask for the game's analysis over the WebSocket and wait until it is ready."""
    with connect(f"ws://127.0.0.1:{server.port}/ws") as ws:
        ws.send(json.dumps({"type": "hello", "name": asker}))
        ws.send(json.dumps({"type": "analyse", "game": game_id, "id": 1}))
        while True:
            message: dict[str, Any] = json.loads(ws.recv(timeout=90))
            if message["type"] == "analysis" and message["state"] == "ready":
                return
            assert message["type"] != "error", message


@pytest.mark.timeout(300)
def test_the_replay_shows_the_analysis_chart_marks_and_ghost(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """chartann plays three moves against a bot and leaves, and asks for the analysis in the chat;
    her replay, opened at once, shows it once it is ready, and the chat says so. The
    replay has a line per player, a mark and cost beside each judged move, a click on a point of
    the chart goes to its move, the keys step, and a move whose best differs shows it as a ghost
    (at the bar's next place too, for a best move to the bar)."""
    page = open_page()
    seat_with_bot(page, "chartann", "chartroom", start=False)
    type_line(page, "/option absent drop")
    page.locator("[data-focus=start]").click()
    page.locator("#app[data-state=playing]").wait_for()
    for _ in range(3):
        play_a_move_and_wait_for_the_bot(page)
    type_line(page, "/leave")
    game_id = _finished(server, "chartann")
    type_line(page, f"/analyse {game_id}")
    page.locator("#log .line", has_text=f"The analysis of game {game_id} is queued").wait_for()
    # the replay, opened while the analysis is being made, shows it once it is ready
    replay = page.context.new_page()
    replay.goto(f"{server.url}games/{game_id}")
    replay.locator("#chart .score-line").nth(1).wait_for(state="attached")
    replay.locator("#moves .mark").first.wait_for(timeout=90_000)
    page.locator("#log .line", has_text=f"The analysis of game {game_id} is ready").wait_for()
    page = replay
    assert page.locator("#chart .score-line").count() == 2
    data = page.evaluate(f"fetch('/api/games/{game_id}/analysis').then((r) => r.json())")
    judged = [m for m in data["moves"] if m["mark"] is not None]
    assert page.locator("#moves .mark").count() == len(judged) > 0
    for move in judged:
        shown = page.locator("#moves li").nth(move["number"] - 1).locator(".mark").inner_text()
        assert move["mark"] in shown, shown
        # its cost to one decimal (a tie such as 36.25 may round either way), shown from 0.05
        cost = re.search(r"−(\d+\.\d)\s*$", shown)
        assert (cost is not None) is (move["cost"] >= 0.05), shown
        assert cost is None or abs(float(cost[1]) - move["cost"]) <= 0.05 + 1e-9, shown
    assert "accuracy" in page.locator("#analysis-status").inner_text()

    page.locator("#chart .point[data-step='2']").click()
    page.locator("#replay[data-step='2']").wait_for()
    page.keyboard.press("ArrowRight")
    page.locator("#replay[data-step='3']").wait_for()
    page.keyboard.press("Home")
    page.locator("#replay[data-step='0']").wait_for()
    page.keyboard.press("End")
    page.locator(f"#replay[data-step='{len(data['moves'])}']").wait_for()
    for move in data["moves"]:
        page.locator("#chart .point[data-step='{}']".format(move["number"])).click()
        page.locator(f"#replay[data-step='{move['number']}']").wait_for()
        differs = move["best"] is not None and move["best"] != move["move"]
        assert (page.locator("#board .ghost").count() > 0) is differs, move
        # (a best move to the bar shows at the place that was next there before the move)
        to_bar = differs and move["best"].lower().endswith("@bar")
        assert (page.locator("#board .ghost[data-chair=bar]").count() == 1) is to_bar, move


def test_the_analysis_reads_in_german_and_fits_a_phone(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """On a phone in German: the chart's heading and the marks are German, their figures written
    with a decimal comma, and the chart is no wider than the screen."""
    page = open_page()
    seat_with_bot(page, "chartbea", "chartzimmer", start=False)
    type_line(page, "/option absent drop")
    page.locator("[data-focus=start]").click()
    page.locator("#app[data-state=playing]").wait_for()
    play_a_move_and_wait_for_the_bot(page)
    type_line(page, "/leave")
    game_id = _finished(server, "chartbea")
    _analyse(server, game_id, "chartasker2")
    phone = open_page(viewport=PHONE, locale="de-DE")
    phone.goto(f"{server.url}games/{game_id}")
    phone.locator("#chart-title", has_text="Punkte im Lauf des Spiels").wait_for()
    phone.locator("#chart .score-line").first.wait_for(state="attached")
    marks = phone.locator("#moves .mark").all_inner_texts()
    assert marks and all(any(w in m for w in ("gut", "ungenau", "Fehler", "erzwungen")) for m in marks)
    figures = [*marks, phone.locator("#analysis-status").inner_text()]
    assert not [f for f in figures if re.search(r"\d\.\d", f)], figures
    assert re.search(r"\d,\d Punkte", figures[-1]), figures[-1]
    box = phone.locator("#chart").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]


def test_a_best_move_to_the_bar_shows_at_the_place_that_was_next(
    open_page: Callable[..., Page], server: ServerThread
) -> None:
    """The ghost of a best move to the bar stands on the bar place that was next before the move
    (the one played may have filled it): a board drawn on the page, the ghost shown for a move
    whose best is ``GBm@bar`` with three places taken before; another move leaves no ghost."""
    page = open_page()
    found = page.evaluate(
        """async () => {
          const { CafeBoard } = await import('/board.js');
          const { showGhost } = await import('/analysis.js');
          const box = document.createElement('div');
          document.body.append(box);
          const board = await (await fetch('/board.json')).json();
          const cafe = new CafeBoard(box, board, { onChair() {}, onBar() {} });
          showGhost(box, cafe, { move: 'FRf@FR1s', best: 'GBm@bar' }, 3);
          const ghosts = [...box.querySelectorAll('.ghost')];
          const place = cafe.slots.findIndex((s) => s.el.contains(ghosts[0]));
          showGhost(box, cafe, { move: 'FRf@FR1s', best: 'FRf@FR1s' }, 3);
          return [ghosts.map((g) => g.dataset.chair), place, box.querySelectorAll('.ghost').length];
        }"""
    )
    assert found == [["bar"], 3, 0]
