"""bench/chaos.py on a short run of each mode: a few kills, every must-be-0 figure 0."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

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
