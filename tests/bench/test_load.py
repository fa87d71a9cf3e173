"""bench/load.py end to end on a tiny load: a real server and the bare relay, both over sockets."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(300)  # the load benchmark, run small
def test_load_bench_plays_real_games_and_relays_the_same_frames(tmp_path: Path) -> None:
    """A short run plays games over WebSocket and line clients without an error, every move the clients
    saw played is in the server's log, and the relay, with as many line clients, answers with frames
    and lines of the sizes the server sent."""
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
    sizes = ("mean_move_bytes", "mean_ack_bytes", "mean_patch_bytes", "mean_event_bytes")
    for size in (*sizes, "mean_line_move_bytes", "mean_line_bytes"):
        assert game[size] > 0
        assert abs(relay[size] - game[size]) <= 0.5  # the relay's frames and lines have the rounded mean size
    assert "game server / bare relay message rate:" in run.stdout


@pytest.mark.timeout(120)
def test_relay_only_answers_with_frames_of_the_sizes_asked_for(tmp_path: Path) -> None:
    """``--relay-only ACK PATCH PLAYED`` runs the relay alone; a size of 0 sends no such frame, so
    with one frame a member a move the clients see no ack and no second frame."""
    out = tmp_path / "relay.json"
    argv = [sys.executable, "bench/load.py", "--relay-only", "0", "500", "0", "--rooms", "3"]
    argv += ["--seconds", "1", "--warmup", "0.3", "--workers", "1", "--json", str(out)]
    run = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=90)
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads(out.read_text())
    relay = figures["relay"]
    assert "game" not in figures and relay["errors"] == 0 and relay["moves_received"] > 0
    assert relay["mean_patch_bytes"] == 500
    assert relay["mean_ack_bytes"] == 0 and relay["mean_event_bytes"] == 0  # none arrived
    assert "bare relay" in run.stdout and "game server" not in run.stdout


@pytest.mark.timeout(120)
def test_connections_only_holds_idle_connections_and_reports_their_cost(tmp_path: Path) -> None:
    """``--connections-only`` opens the connections, each welcomed, holds them without losing one,
    and reports memory and CPU figures for them."""
    out = tmp_path / "idle.json"
    argv = [sys.executable, "bench/load.py", "--connections-only", "30", "--seconds", "1", "--warmup", "0.2"]
    run = subprocess.run([*argv, "--json", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=90)
    assert run.returncode == 0, run.stdout + run.stderr
    idle = json.loads(out.read_text())["idle"]
    assert idle["connections"] == 30 and idle["lost"] == 0 and idle["errors"] == 0
    assert idle["rss_mb"]["connected"] > idle["rss_mb"]["idle"] > 0
    assert isinstance(idle["server_cpu_s_per_min"], float)
    assert "30 idle connections" in run.stdout


@pytest.mark.timeout(120)
def test_restart_bench_restores_every_unfinished_game() -> None:
    """bench/restart.py writes unfinished games, starts the server on them and finds every one
    playing again once a client is welcomed."""
    argv = [sys.executable, "bench/restart.py", "--games", "5", "--moves", "3", "--repeat", "1"]
    run = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=90)
    assert run.returncode == 0, run.stdout + run.stderr
    row = next(line for line in run.stdout.splitlines() if line.startswith("5 unfinished games"))
    assert row.split()[-1] == "5"


def test_rooms_bench_starts_every_room_and_plays_the_planned_moves() -> None:
    """bench/rooms.py seats, starts and plays every room it opens (it checks that each room plays
    and that every planned move was played), prints its figures for each run, and the profile of
    the phase asked for (the room core as Python, so that the profile sees inside it)."""
    argv = [sys.executable, "bench/rooms.py", "--rooms", "3", "--moves", "6", "--repeat", "2"]
    run = subprocess.run([*argv, "--profile", "start", "--lines", "60"], cwd=ROOT, capture_output=True,
                         text=True, timeout=90, env={**os.environ, "CAFE_PURE": "1"})  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    rows = [line.split() for line in run.stdout.splitlines() if line.startswith("run ")]
    assert [row[:2] for row in rows] == [["run", "1:"], ["run", "2:"]]
    assert all(float(row[-1]) > 0 for row in rows)  # the CPU a move, from moves played
    assert "function calls" in run.stdout and re.search(r"room/play\.py:\d+\(on_start\)", run.stdout)


def test_roomstate_bench_counts_what_rooms_keep_alive_between_moves() -> None:
    """bench/roomstate.py plays the rooms it opens and lists, per room, the objects their moves left
    alive, the engine's and the views' among them."""
    argv = [sys.executable, "bench/roomstate.py", "--rooms", "3", "--before", "2", "--moves", "2"]
    run = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=90)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("3 rooms of 4, 6 moves while counted (2 a room)")
    alive = next(line for line in run.stdout.splitlines() if line.startswith("alive a room:"))
    assert float(alive.split()[3]) > 0
    assert "Position" in run.stdout and "RoomViews" in run.stdout


def test_text_bench_times_the_board_and_a_line_clients_text_a_move() -> None:
    """bench/text.py replays games into a room's views and prints, a move, what the board, the played
    line and a line client's whole text cost; the whole text, board included when due, costs more
    than the played line alone."""
    argv = [sys.executable, "bench/text.py", "--games", "1", "--repeat", "1"]
    run = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=90)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("compiled modules: ") and "1 games" in run.stdout
    figures = {line[:14].strip(): float(line[14:].split()[0]) for line in run.stdout.splitlines()[1:]}
    assert set(figures) == {"board", "played line", "a move's text"}
    assert all(value > 0 for value in figures.values())
    assert figures["a move's text"] > figures["played line"]


def test_the_make_bench_scripts_run_as_scripts() -> None:
    """``make bench`` runs bench/engine.py and bench/diff.py as scripts, their folder first on the path:
    each prints its figures (diff.py once imported bench/engine.py in place of the engine package)."""
    runs = {
        "bench/engine.py": (["--games", "2", "--repeat", "2", "--positions", "5"], "play (Move):"),
        "bench/diff.py": (["--games", "2", "--repeat", "2"], "protocol.diff "),
    }
    for script, (args, figure) in runs.items():
        run = subprocess.run(
            [sys.executable, script, *args], cwd=ROOT, capture_output=True, text=True, timeout=90
        )
        assert run.returncode == 0, run.stdout + run.stderr
        assert figure in run.stdout, run.stdout


def test_store_bench_logs_finishes_and_checks_every_game() -> None:
    """bench/store.py logs moves through the SQLite store and through a log that keeps nothing,
    finishes games as their moves run out, and checks that the file holds every game's moves;
    it prints the store's CPU a move."""
    argv = [
        sys.executable,
        "bench/store.py",
        "--games",
        "4",
        "--batch",
        "3",
        "--moves",
        "400",
        "--repeat",
        "1",
    ]
    run = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=90)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = [line for line in run.stdout.splitlines() if line.startswith("run 1, ")]
    assert [row.split(":")[0] for row in rows] == ["run 1, loop alone", "run 1, store     "]
    assert re.search(r"^the store's: -?\d+\.\d us of CPU a move$", run.stdout, re.MULTILINE)


@pytest.mark.timeout(300)  # three phases: one node, two nodes with Redis and PostgreSQL, one node
def test_cluster_mode_plays_on_one_node_then_on_two_with_redis_and_postgresql(tmp_path: Path) -> None:
    """``--cluster`` plays without an error on one node, then on a cluster whose clients are
    spread over both nodes, then on one node again; it counts the CPU of each node, Redis and
    PostgreSQL, and sets it against the mean of the two one-node phases."""
    out = tmp_path / "cluster.json"
    argv = [sys.executable, "bench/load.py", "--cluster", "--rooms", "4", "--seconds", "1"]
    argv += ["--warmup", "0.5", "--workers", "1", "--line-share", "0.25", "--json", str(out)]
    run = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads(out.read_text())
    one, cluster, again = figures["one_node"], figures["cluster"], figures["one_node_again"]
    assert one["errors"] == 0 and cluster["errors"] == 0 and again["errors"] == 0
    assert one["moves_received"] > 0 and cluster["moves_received"] > 0 and again["moves_received"] > 0
    parts = cluster["cpu_us_per_move_by_part"]
    assert set(parts) == {"node1", "node2", "redis", "postgresql"}
    assert parts["node1"] > 0 and parts["node2"] > 0  # every room has members on both nodes
    single = (one["server_cpu_us_per_move"] + again["server_cpu_us_per_move"]) / 2
    ratio = cluster["server_cpu_us_per_move"] / single
    assert f"cluster / one node, CPU a move: {ratio:.2f} " in run.stdout
    assert f"one node: {single:.0f} ({one['server_cpu_us_per_move']:.0f} before," in run.stdout


@pytest.mark.timeout(120)
def test_the_rooms_games_end_spread_over_the_run_not_all_at_once(tmp_path: Path) -> None:
    """Room r plays r/rooms of its first game before the clock starts: at 60 moves a second over
    three rooms, 1.5 s play about 30 moves a room (45 at most, while another starts its next
    game), too few to play a game from its start (51 to 63 moves). So a game that ends is one begun
    before the clock, and the first room's does not."""
    out = tmp_path / "figures.json"
    argv = [sys.executable, "bench/load.py", "--rooms", "3", "--seconds", "1", "--warmup", "0.5"]
    argv += ["--rate", "60", "--workers", "1", "--no-relay", "--json", str(out)]
    run = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=100)
    assert run.returncode == 0, run.stdout + run.stderr
    game = json.loads(out.read_text())["game"]
    assert game["errors"] == 0
    assert 1 <= game["games_finished"] <= 2
    assert game["log_rows"] == game["moves_received"]


@pytest.mark.timeout(180)  # a redis-server and a PostgreSQL of its own
def test_records_bench_reads_redis_memory_and_the_cpu_a_games_end_costs() -> None:
    """bench/records.py plays games through the cluster's store, records in Redis and then in
    PostgreSQL, prints Redis' memory and the tables' sizes, and the CPU of a game's end each way."""
    argv = [sys.executable, "bench/records.py", "--games", "100", "--rooms", "4", "--players", "8"]
    run = subprocess.run([*argv, "--ends", "3"], cwd=ROOT, capture_output=True, text=True, timeout=150)
    assert run.returncode == 0, run.stdout + run.stderr
    assert [
        line.split()[0] for line in run.stdout.splitlines() if line.startswith(("redis ", "postgresql "))
    ] == [
        "redis",
        "postgresql",
    ]
    ends = re.findall(r"a game's end, 3 one at a time: ([\d,]+) µs of CPU each", run.stdout)
    assert len(ends) == 2 and all(int(cost.replace(",", "")) > 0 for cost in ends), run.stdout
    assert re.search(r"^  games +[\d,]+$", run.stdout, re.MULTILINE), run.stdout
