"""bench/chaos.py on a short run of each mode: a few kills, every must-be-0 figure 0."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import is_over, legal_move_texts, new_position, play
from protocol.text.events import render_played

ROOT = Path(__file__).resolve().parents[2]


def _soak(tmp_path: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "figures.json"
    argv = [sys.executable, "bench/chaos.py", "--kills", "3", "--seconds", "20", "--min-gap", "2"]
    argv += ["--max-gap", "4", "--rooms", "3", "--settle", "10", "--json", str(out), *args]
    run = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=170)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "OK: every must-be-0 figure is 0" in run.stdout
    figures: dict[str, Any] = json.loads(out.read_text())
    return figures


def _check(figures: dict[str, Any]) -> None:
    for name in (
        "missing_acked_moves",
        "failed_verify",
        "views_differ",
        "clients_not_back",
        "clients_failed",
        "rooms_idle_after_last_kill",
        "unexpected_exits",
    ):
        assert figures[name] == 0, (name, figures)
    assert figures["kills"] >= 1
    assert figures["acks_before_first_kill"] > 0 and figures["acks_after_last_kill"] > 0
    assert figures["views_compared"] > 0 and figures["games_finished"] > 0


#: the two soaks run one after the other under ``make test``'s workers (pytest-xdist's loadgroup):
#: each measures how long rooms stay idle after a kill, which a second soak beside it would stretch
SOAKS = pytest.mark.xdist_group("chaos-soaks")


@pytest.mark.slow
@SOAKS
def test_single_node_soak_loses_no_acked_move(tmp_path: Path) -> None:
    """The server killed three times while bots play: every acked move is in the log, every finished
    game verifies, every client is back with the view a fresh snapshot gives."""
    figures = _soak(tmp_path)
    _check(figures)
    assert figures["mode"] == "single"


@pytest.mark.slow
@SOAKS
def test_cluster_soak_loses_no_acked_move(tmp_path: Path) -> None:
    """Two nodes and Redis killed by turns while bots play on both: the same checks hold."""
    # a room moves to the other node only once its lease has run out (3 s), and its clients come
    # back with a pause that grows: the rooms get longer after the last kill than on one node
    figures = _soak(tmp_path, "--cluster", "--redis-share", "0.3", "--settle", "20")
    _check(figures)
    assert figures["mode"] == "cluster"


def test_a_missing_acked_move_is_shown_beside_what_the_log_holds() -> None:
    """A failed soak says, for an acked move not found, what its room's games hold at that number
    and where the move is, so that a lost move can be told from a misnumbered one."""
    from bench.chaos import Ack, _logged_instead

    games = {
        "g1": ("chaos0", ["r0s0", "r0s1"], ["FRf@bar", "CFf@bar", "ITm@bar"], False),
        "g2": ("chaos1", ["r0s1"], ["CFf@bar"], True),
    }
    ack = Ack("Chaos0", "r0s1", 3, "CFf@bar", 0.0)
    said = _logged_instead(ack, games)
    assert said == "game g1: 3 moves, at 3: 'ITm@bar', this move at [2]"
    assert _logged_instead(Ack("chaos0", "r0s1", 9, "DEm@bar", 0.0), games) == (
        "game g1: 3 moves, at 9: None, this move at []"
    )
    assert _logged_instead(Ack("chaos2", "r0s1", 1, "DEm@bar", 0.0), games) == (
        "no game of that room with that player"
    )


def test_the_line_bots_read_each_move_played_as_it_was_typed() -> None:
    """A line bot counts a move acknowledged only when the line of its move played says the move it
    typed: read over whole games, every kind of move's line gives the move back, whatever the
    order of its actions, and a line of another kind gives none."""
    from bench.chaos import _actions, played_move

    kinds: set[str] = set()
    for seed in range(6):
        position = new_position(["ann", "bob", "cy"], seed)
        rng = random.Random(seed)
        while not is_over(position):
            move = rng.choice(legal_move_texts(position))
            result = play(position, move)
            line = render_played("ann", move, result.points, result.events)
            said = line.removeprefix("ann ")
            assert played_move(said) == _actions(move), line
            kinds.add(said.split()[0])
            position = result.position
    assert kinds == {"seats", "sends", "swaps"}
    both = played_move("seats FRf at FR1s, ESm at ES1e: +7")
    assert both == played_move("seats ESm at ES1e, FRf at FR1s: +7") == {"FRf@FR1s", "ESm@ES1e"}
    assert played_move("takes a seat") is None


async def test_a_line_bot_counts_the_move_it_sees_played_among_those_it_typed() -> None:
    """A line bot may type a second move before the first is seen played (the answer to a /moves
    asked twice): the line of its move played counts the move it says, at the number it was typed
    for; the other is refused, and a later line of the bot's played is no ack of it. A line of a
    move it never typed counts nothing."""
    from bench.chaos import ChaosLineBot, Record
    from bots.client.runner import BotSettings

    record = Record()
    settings = BotSettings(name="r0s2", room="chaos0", strategy="random", line="127.0.0.1:1")
    bot = ChaosLineBot(settings, [], record, 0.0)
    bot._typed = [(29, "USf@US2w USm@TR2s"), (29, "USf@US2s USm@TR2s")]
    await bot._receive("r0s2 seats USf at US2w, USm at TR2s: +4")
    assert [(a.number, a.move) for a in record.acks] == [(29, "USf@US2w USm@TR2s")]
    assert bot._typed == []
    bot._typed = [(31, "FRm@bar")]
    await bot._receive("r0s2 sends CNm to the bar (place 2): +1")
    assert len(record.acks) == 1 and bot._typed == []
