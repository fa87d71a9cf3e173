"""What the SQLite game log costs a move, logged as a busy server logs them: ``--games`` games
running at once, each turn of the event loop logging one move of ``--batch`` of them (one commit),
a game finished once its moves run out and a new one started in its place.

The moves are those of random games (``engine.random_game``), so the rows are the size of real
ones. The figure is the process's CPU time (the store's checkpointing thread included) over the
moves logged, on a fresh log for each of ``--repeat`` runs, less that of the same loop around a
log that keeps nothing. Each run then reads the log as another process would and stops the
script if any game's moves are not exactly those logged. Run the same script in two trees, in
turns, to compare two versions of the store.

    python bench/store.py [--games 500] [--batch 20] [--moves 60000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import compiled  # noqa: E402

compiled.use()  # before the engine is imported: a fresh build runs, as in the server

from engine import GameRecord, Outcome, random_game  # noqa: E402
from server.log.sqlite.journal import logged_moves  # noqa: E402
from server.log.sqlite.store import Store  # noqa: E402

PLAYERS = ("ann", "bob", "cy", "dee")
#: the random games whose moves are logged, over and over (making one takes milliseconds)
POOL = 200
DRAW = Outcome(
    "deck", dict.fromkeys(PLAYERS, 0), dict.fromkeys(PLAYERS, 0), PLAYERS, dict.fromkeys(PLAYERS, 1)
)


class NullLog:
    """A log that keeps nothing: the same loop around it measures what is not the store's."""

    async def game_started(self, *args: object) -> None:
        await asyncio.sleep(0)

    async def move_played(self, *args: object) -> None:
        await asyncio.sleep(0)

    async def game_finished(self, *args: object) -> None:
        await asyncio.sleep(0)

    def close(self) -> None:
        pass


async def run(
    store: Store | NullLog, pool: list[list[str]], args: argparse.Namespace, seed: int
) -> tuple[float, float, dict[str, tuple[bool, list[str]]]]:
    """Log ``args.moves`` moves; the CPU seconds and the wall seconds it took, and what the log
    must hold: each game's moves, and whether it is finished."""
    rng = random.Random(seed)
    started = 0
    running: dict[str, tuple[list[str], int]] = {}  # game id -> (its moves, how many are logged)
    finished: dict[str, list[str]] = {}

    async def start() -> None:
        nonlocal started
        game_id = f"g{started:06d}"
        await store.game_started(game_id, f"room{started}", GameRecord(PLAYERS, started), ["person"] * 4, {})
        running[game_id] = (pool[started % len(pool)], 0)
        started += 1

    for _ in range(args.games):
        await start()
    logged = 0
    cpu, wall = time.process_time(), time.perf_counter()
    try:
        while logged < args.moves:
            turn = rng.sample(list(running), min(args.batch, len(running)))
            await asyncio.gather(
                *(store.move_played(g, running[g][1] + 1, running[g][0][running[g][1]]) for g in turn)
            )
            logged += len(turn)
            for game_id in turn:
                played, count = running[game_id]
                running[game_id] = (played, count + 1)
                if count + 1 == len(played):
                    await store.game_finished(game_id, DRAW)
                    finished[game_id] = played
                    del running[game_id]
                    await start()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        expected = {g: (False, played[:count]) for g, (played, count) in running.items()}
        return cpu, wall, expected | {g: (True, played) for g, played in finished.items()}
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500, help="games running at once")
    parser.add_argument("--batch", type=int, default=20, help="moves a turn of the loop logs (one commit)")
    parser.add_argument("--moves", type=int, default=60_000, help="moves a run logs")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    pool = [list(random_game(PLAYERS, seed=i).moves) for i in range(POOL)]
    figures: dict[str, list[float]] = {"store": [], "loop alone": []}
    with tempfile.TemporaryDirectory() as folder:
        for i in range(args.repeat):
            path = os.path.join(folder, f"run{i}.db")
            for name, log in (("loop alone", NullLog()), ("store", Store(path))):
                cpu, wall, expected = asyncio.run(run(log, pool, args, seed=i + 1))
                if isinstance(log, Store):
                    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
                        if logged_moves(db) != expected:
                            sys.exit(f"run {i + 1}: the log does not hold the moves logged")
                figures[name].append(cpu / args.moves * 1e6)
                rate = args.moves / wall
                print(
                    f"run {i + 1}, {name:10}: {figures[name][-1]:6.1f} us of CPU a move, {rate:8,.0f} moves/s"
                )
            size = sum(os.path.getsize(p) for p in Path(folder).glob(f"run{i}.db*"))
            print(f"run {i + 1}: the log takes {size / 1e6:.1f} MB")
    store, alone = (statistics.median(figures[k]) for k in ("store", "loop alone"))
    print(f"median: {store:.1f} us of CPU a move with the store, {alone:.1f} without it")
    print(f"the store's: {store - alone:.1f} us of CPU a move")


if __name__ == "__main__":
    main()
