"""How fast the rules engine is: whole random games, ``legal_moves`` and ``play``.

Prints three figures (it never asserts a timing):

* full random 4-player games per second, each move drawn uniformly from ``legal_moves``;
* ``legal_moves`` time per call on the perft golden positions (median and 95th percentile);
* ``play`` calls per second on the legal moves of positions from random games (given as ``Move``
  objects, and as text, which adds parsing).

    python bench/engine.py [--games 200] [--repeat 200] [--positions 600]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

# run as a script, this file's folder comes first on the path and its name would hide the package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import compiled  # noqa: E402

compiled.use()  # before the engine is imported: a fresh build runs, as in the server

from engine import (  # noqa: E402
    Move,
    Options,
    Position,
    is_over,
    legal_moves,
    play,
    position_from_dict,
    random_game,
    replay,
)

GOLDEN_DIR = Path(__file__).resolve().parent.parent / "tests" / "engine" / "golden"
NAMES = ("ann", "bob", "cy", "dee")


def bench_games(games: int) -> None:
    """Whole 4-player games of uniformly random legal moves, one after the other."""
    moves = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for seed in range(games):
        moves += len(random_game(NAMES, seed).moves)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        f"random 4-player games: {games / cpu:9,.1f} games/s "
        f"({games} games, {moves / games:.1f} moves each, {moves / cpu:,.0f} moves/s; "
        f"wall clock {games / wall:,.1f}/s)"
    )


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def clock_cost() -> float:
    """What one reading of the CPU clock costs (it is a system call), to subtract from timings."""
    readings = []
    for _ in range(1000):
        start = time.process_time()
        readings.append(time.process_time() - start)
    return statistics.median(readings)


def bench_legal_moves(repeat: int) -> None:
    """``legal_moves`` on every golden position, each call timed ``repeat`` times in CPU time."""
    times: list[float] = []
    cost = clock_cost()
    print(f"legal_moves per call on the golden positions ({repeat} calls each, CPU time):")
    for path in sorted(GOLDEN_DIR.glob("*.json")):
        position = position_from_dict(json.loads(path.read_text(encoding="utf-8"))["position"])
        own: list[float] = []
        for _ in range(repeat):
            start = time.process_time()
            moves = legal_moves(position)
            own.append(max(0.0, time.process_time() - start - cost))
        times.extend(own)
        print(
            f"  {path.stem:<16} {len(moves):>5} moves  median {statistics.median(own) * 1e3:7.3f} ms"
            f"  p95 {percentile(own, 0.95) * 1e3:7.3f} ms"
        )
    print(
        f"  {'all':<16} {'':>11}  median {statistics.median(times) * 1e3:7.3f} ms"
        f"  p95 {percentile(times, 0.95) * 1e3:7.3f} ms"
    )


def sample_positions(count: int) -> list[Position]:
    """``count`` positions (not over) taken evenly from random 4-player games."""
    positions: list[Position] = []
    seed = 1000
    while len(positions) < count:
        record = random_game(NAMES, seed, options=Options(stammtisch=seed % 2 == 0))
        positions.extend(r.position for r in replay(record).results if not is_over(r.position))
        seed += 1
    return random.Random(0).sample(positions, count)


def bench_play(count: int) -> None:
    """``play`` on every legal move of ``count`` positions, as Move objects and as text."""
    work: list[tuple[Position, Move]] = [(p, m) for p in sample_positions(count) for m in legal_moves(p)]
    texts = [(p, m.text) for p, m in work]
    for label, items in (("Move", work), ("text", texts)):
        wall, cpu = time.perf_counter(), time.process_time()
        for position, move in items:
            play(position, move)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(
            f"play ({label}):           {len(items) / cpu:9,.0f} calls/s "
            f"({len(items):,} calls; wall clock {len(items) / wall:,.0f}/s)"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="random 4-player games to play")
    parser.add_argument("--repeat", type=int, default=200, help="legal_moves calls per golden position")
    parser.add_argument("--positions", type=int, default=600, help="positions whose legal moves are played")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"Python {platform.python_version()} on {platform.machine()}, one process; load average {load:.2f}")
    print("rates are per second of this process's CPU time (one core); wall clock in brackets")
    bench_games(args.games)
    bench_legal_moves(args.repeat)
    bench_play(args.positions)


if __name__ == "__main__":
    main()
