"""bench/load.py end to end on a tiny load: a real server and the bare relay, both over sockets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(300)  # the load benchmark, run small
def test_load_bench_plays_real_games_and_relays_the_same_frames(tmp_path: Path) -> None:
    """A short run plays games over WebSocket and line clients without an error, every move the clients
    saw played is in the server's log, and the relay answers with frames of the sizes the server sent."""
    out = tmp_path / "figures.json"
    argv = [sys.executable, "bench/load.py", "--rooms", "3", "--seconds", "1", "--warmup", "0.5"]
    argv += ["--workers", "1", "--line-share", "0.25", "--json", str(out)]
    run = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads(out.read_text())
    game, relay = figures["game"], figures["relay"]
    assert game["errors"] == 0 and relay["errors"] == 0
    assert game["moves_received"] > 0 and game["log_rows"] == game["moves_received"]
    assert relay["moves_received"] > 0
    for size in ("mean_ack_bytes", "mean_patch_bytes", "mean_event_bytes"):
        assert game[size] > 0
        assert abs(relay[size] - game[size]) <= 0.5  # the relay's frames have the rounded mean size
    assert "game server / bare relay message rate:" in run.stdout
