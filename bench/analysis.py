"""How long the analysis of a finished game takes, and how stable its marks are.

Plays a 2-player and a 4-player game with the greedy bot (the seeds given), analyses each at the
budget given (the server's default, ``--analysis-budget``, unless told), and prints for each:

* the moves analysed, the wall time and the CPU time of the process (one core: the analysis is
  single-threaded, as in its worker);
* how stable the marks are: the game analysed again with another seed, the share of judged moves
  that got the same mark both times, and the mean absolute difference of the costs.

    python bench/analysis.py [--budget 0.75] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

# run as a script, this file's folder comes first on the path and its name would hide the package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from bots.analysis import DEFAULT_BUDGET, FORCED, GameAnalysis, analyse_record  # noqa: E402
from bots.strategy import bot_view, get_strategy  # noqa: E402
from engine import GameRecord, is_over, new_position, play  # noqa: E402


def greedy_game(players: int, seed: int) -> GameRecord:
    """A whole game of the greedy bot in every seat."""
    names = tuple(f"p{i + 1}" for i in range(players))
    position = new_position(names, seed)
    bot = get_strategy("greedy")
    rng = random.Random(seed)
    moves = []
    while not is_over(position):
        move = bot.choose(bot_view(position, position.to_move), rng)
        moves.append(move)
        position = play(position, move).position
    return GameRecord(names, seed, moves=tuple(moves))


def timed(record: GameRecord, budget: float, seed: int) -> tuple[GameAnalysis, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    analysis = analyse_record(record, budget=budget, seed=seed)
    return analysis, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--budget", type=float, default=DEFAULT_BUDGET, help="seconds a move")
    parser.add_argument("--seed", type=int, default=1, help="the games' seed")
    args = parser.parse_args()
    print(f"analysis at {args.budget} s a move")
    for players in (2, 4):
        record = greedy_game(players, args.seed)
        first, wall, cpu = timed(record, args.budget, seed=1)
        second, _, _ = timed(record, args.budget, seed=2)
        pairs = [
            (a, b)
            for a, b in zip(first.moves, second.moves, strict=True)
            if a.mark not in (None, FORCED) and b.mark not in (None, FORCED)
        ]
        same = sum(a.mark == b.mark for a, b in pairs)
        drift = sum(abs(a.cost - b.cost) for a, b in pairs) / max(1, len(pairs))
        print(
            f"{players} players: {len(record.moves)} moves, {wall:.1f} s wall, {cpu:.1f} s CPU;"
            f" marks the same in two runs of other seeds: {same}/{len(pairs)}"
            f" ({100 * same / max(1, len(pairs)):.0f} %), costs {drift:.2f} points apart on average"
        )
        for name, figures in first.players.items():
            print(
                f"  {name}: accuracy {figures.accuracy:.0f} %, mean cost {figures.mean_cost:.2f},"
                f" marks {dict(sorted(figures.marks.items()))}"
            )


if __name__ == "__main__":
    main()
