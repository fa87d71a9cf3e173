"""Strategies against each other: seeded games with the seats rotated, and each one's standing.

``python -m bots.tournament --games 200 --seed 1 strong greedy`` plays 200 two-player games and
prints, for each strategy, its win rate with a 95% (Wilson) interval, its mean final score and its
mean time per move. Each deal is played once from every seat, so that no strategy is favoured by
its cards or its place in the turn order. A win is a first place; a first place shared by ``k``
players counts ``1/k`` to each.

``--budget`` sets the searching strategies' (``strong``, ``classic``) mean seconds per move
(``--iterations`` caps their playouts instead, for repeatable runs), ``--players`` the seats per
game (the strategies named repeat to fill them), and ``--jobs`` plays that many games at once in
worker processes; a strategy's time per move is the CPU time of the thread that plays it.
``--cpu-time`` counts the search budget in CPU seconds as well, so that the figures hold for a
core of its own on a machine that is busy with other work.

>>> standings = run_tournament(["greedy", "random"], games=2, seed=1)
>>> [s.games for s in standings]
[2, 2]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from bots.strategy import KNOWN_STRATEGIES, Strategy, bot_view, get_strategy
from bots.strategy.search import DEFAULT_BUDGET
from engine import new_position, play

#: a safety net: no real game comes near this many moves
MAX_MOVES = 1000


@dataclass(frozen=True, slots=True)
class Entry:
    """One contestant: a label (the strategy's name, numbered when it plays more than one seat
    under different settings) and how to build its strategy."""

    label: str
    strategy: str
    kwargs: tuple[tuple[str, Any], ...] = ()

    def build(self) -> Strategy:
        return get_strategy(self.strategy, **dict(self.kwargs))


@dataclass(frozen=True, slots=True)
class GameResult:
    """One game: for each seat, the entry's label, its win share, final score, moves and the time
    its moves took; and why the game ended."""

    labels: tuple[str, ...]
    wins: tuple[float, ...]
    scores: tuple[int, ...]
    moves: tuple[int, ...]
    seconds: tuple[float, ...]
    reason: str


@dataclass(slots=True)
class Standing:
    """An entry's totals over the tournament."""

    label: str
    games: int = 0
    wins: float = 0.0
    score: int = 0
    moves: int = 0
    seconds: float = 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.games)

    @property
    def mean_score(self) -> float:
        return self.score / self.games if self.games else 0.0

    @property
    def time_per_move(self) -> float:
        return self.seconds / self.moves if self.moves else 0.0


def wilson(wins: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``wins / n`` (95% by default).

    >>> low, high = wilson(60, 100)
    >>> round(low, 3), round(high, 3)
    (0.502, 0.691)
    """
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def play_game(entries: Sequence[Entry], deal_seed: int, move_seed: str) -> GameResult:
    """One game between ``entries`` (seat order) on the deal of ``deal_seed``. Each bot sees only its
    own view and draws its chances from its own generator, seeded from ``move_seed`` and its seat."""
    bots = [e.build() for e in entries]
    rngs = [random.Random(f"{move_seed}:{seat}") for seat in range(len(entries))]
    position = new_position([f"p{i}" for i in range(len(entries))], deal_seed)
    moves = [0] * len(entries)
    seconds = [0.0] * len(entries)
    for _ in range(MAX_MOVES):
        seat = position.to_move
        started = time.thread_time()
        text = bots[seat].choose(bot_view(position, seat), rngs[seat])
        seconds[seat] += time.thread_time() - started
        moves[seat] += 1
        result = play(position, text)
        position = result.position
        if result.outcome is not None:
            out = result.outcome
            break
    else:
        raise RuntimeError(f"deal {deal_seed}: no end after {MAX_MOVES} moves")
    names = [p.name for p in position.players]
    first = [n for n in names if out.places[n] == 1]
    return GameResult(
        labels=tuple(e.label for e in entries),
        wins=tuple(1 / len(first) if n in first else 0.0 for n in names),
        scores=tuple(out.final_scores[n] for n in names),
        moves=tuple(moves),
        seconds=tuple(seconds),
        reason=out.reason,
    )


def schedule(entries: Sequence[Entry], games: int, seed: int) -> list[tuple[list[Entry], int, str]]:
    """The games to play: deal ``d`` is played once per rotation of the seats, in order."""
    n = len(entries)
    plan = []
    for g in range(games):
        deal, rotation = divmod(g, n)
        seats = [entries[(i + rotation) % n] for i in range(n)]
        plan.append((seats, seed * 1_000_003 + deal, f"{seed}:{g}"))
    return plan


def _play(args: tuple[list[Entry], int, str]) -> GameResult:
    return play_game(*args)


@dataclass(slots=True)
class Totals:
    """Standings by label, in the order the labels first appear, and the end reasons."""

    standings: dict[str, Standing] = field(default_factory=dict)
    reasons: Counter[str] = field(default_factory=Counter)

    def add(self, result: GameResult) -> None:
        for i, label in enumerate(result.labels):
            s = self.standings.setdefault(label, Standing(label))
            s.games += 1
            s.wins += result.wins[i]
            s.score += result.scores[i]
            s.moves += result.moves[i]
            s.seconds += result.seconds[i]
        self.reasons[result.reason] += 1


def make_entries(
    names: Sequence[str], players: int | None = None, strategy_kwargs: dict[str, dict[str, Any]] | None = None
) -> list[Entry]:
    """The seats of a game: ``names`` repeated in turn to fill ``players`` seats (by default one seat
    each, at least two). A name that fills several seats keeps one label and one standing."""
    if not names:
        raise ValueError("name at least one strategy")
    for name in names:
        if name not in KNOWN_STRATEGIES:
            raise ValueError(f"unknown strategy {name!r} (known: {', '.join(KNOWN_STRATEGIES)})")
    n = players if players is not None else max(2, len(names))
    if not 2 <= n <= 4:
        raise ValueError(f"a game has 2 to 4 players, not {n}")
    if n < len(names):
        raise ValueError(f"{len(names)} strategies do not fit in {n} seats")
    kwargs = strategy_kwargs or {}
    return [
        Entry(
            names[i % len(names)],
            names[i % len(names)],
            tuple(sorted(kwargs.get(names[i % len(names)], {}).items())),
        )
        for i in range(n)
    ]


def run_tournament(
    names: Sequence[str],
    games: int,
    seed: int,
    *,
    players: int | None = None,
    strategy_kwargs: dict[str, dict[str, Any]] | None = None,
    jobs: int = 1,
    progress: bool = False,
) -> list[Standing]:
    """Play ``games`` seeded games between the strategies ``names`` and return their standings."""
    totals = Totals()
    plan = schedule(make_entries(names, players, strategy_kwargs), games, seed)
    started = time.monotonic()
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            for done, result in enumerate(pool.map(_play, plan, chunksize=1), 1):
                totals.add(result)
                _progress(progress, done, games, totals, started)
    else:
        for done, args in enumerate(plan, 1):
            totals.add(_play(args))
            _progress(progress, done, games, totals, started)
    return list(totals.standings.values())


def _progress(on: bool, done: int, games: int, totals: Totals, started: float) -> None:
    if not on:
        return
    rates = ", ".join(f"{s.label} {s.win_rate:.1%}" for s in totals.standings.values())
    print(f"{done}/{games} games, {time.monotonic() - started:.0f} s: {rates}", file=sys.stderr, flush=True)


def format_standings(standings: Sequence[Standing]) -> str:
    """A table: strategy, games, wins, win rate, its 95% interval, mean score, time per move."""
    header = f"{'strategy':<10} {'games':>6} {'wins':>7} {'win rate':>9} {'95% interval':>17} "
    header += f"{'mean score':>11} {'time/move':>11}"
    lines = [header]
    for s in standings:
        low, high = s.interval
        lines.append(
            f"{s.label:<10} {s.games:>6} {s.wins:>7.1f} {s.win_rate:>9.1%} "
            f"{f'[{low:.1%}, {high:.1%}]':>17} {s.mean_score:>11.1f} {s.time_per_move * 1000:>8.1f} ms"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bots.tournament",
        description="Play seeded games between bot strategies, seats rotated, and print their standings.",
    )
    parser.add_argument(
        "strategies",
        nargs="+",
        choices=KNOWN_STRATEGIES,
        metavar="STRATEGY",
        help=f"one of {', '.join(KNOWN_STRATEGIES)}; one seat each, repeated to fill --players",
    )
    parser.add_argument("--games", type=int, default=200, help="games to play (default 200)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals and the bots' chances")
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        help="mean seconds per move for strong and classic (default: their own, 1.0)",
    )
    parser.add_argument(
        "--budget-for",
        action="append",
        default=[],
        metavar="STRATEGY=SECONDS",
        help="that strategy's own budget, over --budget (to weigh a search against a slower one: "
        "the same search given less time)",
    )
    parser.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="at most this many search iterations per move for strong and classic",
    )
    parser.add_argument(
        "--players", type=int, default=None, help="seats per game (default: one per strategy)"
    )
    parser.add_argument(
        "--cpu-time",
        action="store_true",
        help="count the budget in CPU seconds of the thinking thread, not the wall's (a busy machine "
        "then makes a game slower, not the search weaker)",
    )
    parser.add_argument("--jobs", type=int, default=1, help="games played at once in worker processes")
    parser.add_argument("--progress", action="store_true", help="report after every game on stderr")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    strong: dict[str, Any] = {"cpu_time": True} if args.cpu_time else {}
    if args.budget is not None:
        strong["budget"] = args.budget
    if args.iterations is not None:
        strong["max_iterations"] = args.iterations
    searching = {"strong": strong, "classic": strong}
    budgets: dict[str, float] = {}
    for given in args.budget_for:
        name, _, seconds = given.partition("=")
        if name not in searching:
            parser.error(f"--budget-for names strong or classic, not {name!r}")
        try:
            budgets[name] = float(seconds)
        except ValueError:
            parser.error(f"--budget-for {given!r}: give seconds, as in classic=0.1")
    searching = {
        name: {**kwargs, **({"budget": budgets[name]} if name in budgets else {})}
        for name, kwargs in searching.items()
    }
    try:
        entries = make_entries(args.strategies, args.players, searching)
    except ValueError as e:
        parser.error(str(e))
    started = time.monotonic()
    standings = run_tournament(
        args.strategies,
        args.games,
        args.seed,
        players=len(entries),
        strategy_kwargs=searching,
        jobs=args.jobs,
        progress=args.progress,
    )
    settings = f"{args.games} games, {len(entries)} players, seed {args.seed}"
    if {"strong", "classic"} & set(args.strategies):
        clock = "CPU" if args.cpu_time else "wall"
        settings += f", search budget {strong.get('budget', DEFAULT_BUDGET)} s ({clock}) per move"
        settings += "".join(f", {name} {seconds} s" for name, seconds in budgets.items())
        if args.iterations is not None:
            settings += f" or {args.iterations} playouts"
    print(settings)
    print(format_standings(standings))
    print(f"wall time {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
