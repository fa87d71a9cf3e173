"""How fast ``protocol.diff`` is on the views a room sends, beside ``jsonpatch.make_patch``.

Plays random games, builds the view of each position for a player and for a spectator, and
times the patch between consecutive views; prints mean and median microseconds per patch, the
same for ``jsonpatch.make_patch`` and ``apply_patch``, and the size of a patch beside the size of
the whole view (compact JSON, in bytes).

    python bench/diff.py [--games 20] [--players 4] [--repeat 20]
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

# run as a script, this file's folder comes first on the path, and bench/engine.py would hide the
# engine package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import jsonpatch  # noqa: E402

import compiled  # noqa: E402

compiled.use()  # before the engine is imported: a fresh build runs, as in the server

from engine import outcome, random_game, replay  # noqa: E402
from protocol.diff import apply_patch, diff  # noqa: E402
from protocol.view import LastMove, SeatInfo, room_view  # noqa: E402

NAMES = ("ann", "bob", "cy", "dee")

Pair = tuple[dict[str, Any], dict[str, Any]]


def view_pairs(games: int, players: int, recipient: str) -> list[Pair]:
    """Consecutive views of every move of ``games`` random games, as ``recipient`` gets them."""
    names = NAMES[:players]
    seats = [SeatInfo(n, "person", True) for n in names]
    pairs: list[Pair] = []
    for seed in range(games):
        record = random_game(names, seed)
        views = []
        for number, result in enumerate(replay(record).results, 1):
            position = result.position
            views.append(
                room_view(
                    room="cafe",
                    state="playing" if outcome(position) is None else "over",
                    seats=seats,
                    spectators=["zoe"],
                    options={"stammtisch": False},
                    position=position,
                    recipient=recipient,
                    last_move=LastMove(names[result.player], result.move, result.points),
                    outcome=outcome(position),
                    move_number=number,
                )
            )
        pairs.extend(itertools.pairwise(views))
    return pairs


def per_call_us(
    pairs: Sequence[tuple[Any, Any]], call: Callable[[Any, Any], Any], repeat: int
) -> list[float]:
    """Microseconds per call for each pair: the best of a few timed loops of ``repeat`` calls,
    so that an interruption by another process does not count."""
    times = []
    for prev, nxt in pairs:
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            for _ in range(repeat):
                call(prev, nxt)
            best = min(best, time.perf_counter() - start)
        times.append(best / repeat * 1e6)
    return times


def size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def line(label: str, values: list[float], unit: str) -> str:
    return (
        f"  {label:<28} mean {statistics.fmean(values):9.1f} {unit}   "
        f"median {statistics.median(values):9.1f} {unit}   max {max(values):9.1f} {unit}"
    )


def report(title: str, pairs: list[Pair], repeat: int) -> None:
    for prev, nxt in pairs:  # the figures are only worth printing for correct patches
        assert apply_patch(prev, diff(prev, nxt)) == nxt
    view_bytes = [float(size(nxt)) for _, nxt in pairs]
    patch_bytes = [float(size(diff(prev, nxt))) for prev, nxt in pairs]
    ops = [float(len(diff(prev, nxt))) for prev, nxt in pairs]
    print(f"{title}: {len(pairs)} consecutive views")
    print(line("view size", view_bytes, "B "))
    print(line("patch size", patch_bytes, "B "))
    print(line("operations per patch", ops, "  "))
    print(f"  {'patch / view':<28} {sum(patch_bytes) / sum(view_bytes):9.1%} of the bytes")
    mine = per_call_us(pairs, diff, repeat)
    theirs = per_call_us(pairs, jsonpatch.make_patch, max(1, repeat // 10))
    print(line("protocol.diff", mine, "µs"))
    print(line("jsonpatch.make_patch", theirs, "µs"))
    print(f"  {'speed-up (mean)':<28} {statistics.fmean(theirs) / statistics.fmean(mine):9.0f} x")
    patches = [(prev, diff(prev, nxt)) for prev, nxt in pairs]
    print(line("protocol.apply_patch", per_call_us(patches, apply_patch, repeat), "µs"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=20, help="random games to play (default 20)")
    parser.add_argument("--players", type=int, default=4, choices=(2, 3, 4), help="players per game")
    parser.add_argument("--repeat", type=int, default=20, help="calls per timed loop (default 20)")
    args = parser.parse_args()
    print(f"{args.games} random games of {args.players} players")
    report("a player's view", view_pairs(args.games, args.players, "ann"), args.repeat)
    report("a spectator's view", view_pairs(args.games, args.players, "zoe"), args.repeat)


if __name__ == "__main__":
    main()
