"""How long a restart takes with unfinished games in the log: from starting the server process until
every game is restored and a client is accepted.

It writes ``--games`` unfinished games of 4 players, ``--moves`` moves into each (random legal
moves, drawn once), to a fresh SQLite log through the server's own ``Store``; then it starts
``python -m server`` on that log, ``--repeat`` times, alternately with an empty log (the cost of
starting the process at all), and for each start measures the time until a WebSocket client's
``hello`` is welcomed and until the room list shows every game playing. The server restores the
log before it listens, so the two are close; the list is the proof that every game came back.

    python bench/restart.py [--games 1000] [--moves 30] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from websockets.sync.client import connect  # noqa: E402

import compiled  # noqa: E402

compiled.use()  # before the engine is imported: a fresh build runs, as in the server

from engine import GameRecord, random_game  # noqa: E402
from server.log.sqlite.store import Store  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ("ann", "bob", "cy", "dee")
#: seconds a start may take before the run gives up
DEADLINE = 60.0


def write_log(path: str, games: int, moves: int) -> None:
    """``games`` unfinished games with ``moves`` moves each, through the server's own log."""

    async def write() -> None:
        store = Store(path)
        try:
            for i in range(games):
                played = random_game(PLAYERS, seed=i).moves
                players = [f"{p}{i}" for p in PLAYERS]
                record = GameRecord(tuple(players), i)
                game_id = f"g{i:05d}"
                await store.game_started(
                    game_id, f"room{i}", record, ["person"] * 4, {}, [f"id-{p}" for p in players]
                )
                # a game shorter than ``moves`` stops one move before its end: it stays unfinished
                for number, move in enumerate(played[: min(moves, len(played) - 1)], start=1):
                    await store.move_played(game_id, number, move)
        finally:
            store.close()

    asyncio.run(write())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_once(data: str, games: int) -> tuple[float, float, int]:
    """Start the server on ``data``: seconds until a hello is welcomed, until the room list holds
    every game playing, and how many games it shows playing."""
    port = free_port()
    argv = [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", str(port), "--line-port", "-1",
            "--data", data, "--log-level", "warning", "--max-rooms", str(games + 100)]  # fmt: skip
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    try:
        welcomed = playing_at = None
        playing = 0
        while time.monotonic() - t0 < DEADLINE:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited with {proc.returncode}")
            try:
                with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=5) as ws:
                    ws.send(json.dumps({"type": "hello", "name": "watcher"}))
                    if json.loads(ws.recv(5))["type"] != "welcome":
                        raise RuntimeError("not welcomed")
                    welcomed = time.monotonic() - t0
                    ws.send(json.dumps({"type": "list_rooms", "id": 1}))
                    while True:
                        reply = json.loads(ws.recv(10))
                        if reply["type"] == "rooms":
                            break
                    playing = sum(1 for r in reply["rooms"] if r["state"] == "playing")
                    playing_at = time.monotonic() - t0
                break
            except OSError:
                time.sleep(0.01)
        if welcomed is None or playing_at is None:
            raise TimeoutError(f"no welcome within {DEADLINE:g} s")
        return welcomed, playing_at, playing
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(30)
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="unfinished games in the log")
    parser.add_argument("--moves", type=int, default=30, help="moves played in each")
    parser.add_argument("--repeat", type=int, default=3, help="starts of each kind")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="cafe-restart-"))
    full, empty = str(folder / "full.db"), str(folder / "empty.db")
    t = time.monotonic()
    write_log(full, args.games, args.moves)
    write_log(empty, 0, 0)
    print(f"wrote {args.games} unfinished games of {args.moves} moves in {time.monotonic() - t:.1f} s")
    runs: dict[str, list[tuple[float, float, int]]] = {"empty": [], "full": []}
    for _ in range(args.repeat):
        runs["empty"].append(start_once(empty, 0))
        runs["full"].append(start_once(full, args.games))
    print(f"{'log':<28}{'welcomed s':>24}{'all games listed s':>24}{'games playing':>16}")
    for kind, label in (("empty", "empty"), ("full", f"{args.games} unfinished games")):
        welcomed = [r[0] for r in runs[kind]]
        listed = [r[1] for r in runs[kind]]
        counts = sorted({r[2] for r in runs[kind]})
        print(f"{label:<28}{_span(welcomed):>24}{_span(listed):>24}{'/'.join(map(str, counts)):>16}")
    restore = [f[1] - statistics.median(r[1] for r in runs["empty"]) for f in runs["full"]]
    print(f"restoring the games (full minus the median empty start): {_span(restore)} s")
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    ok = all(r[2] == args.games for r in runs["full"])
    if not ok:
        print("FAILED: not every game came back")
    return 0 if ok else 1


def _span(values: list[float]) -> str:
    return f"{min(values):.2f}-{max(values):.2f} (median {statistics.median(values):.2f})"


if __name__ == "__main__":
    sys.exit(main())
