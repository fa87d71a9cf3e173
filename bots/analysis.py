"""The analysis of a finished game: what each move cost its player, in points of final margin.

For every move, the analysis stands where the mover stood: their own hand and what everyone sees
(the board, the bar, the scores, the hand sizes, the deck's size), never another seat's hand. It
compares the move played with the moves the greedy judge likes best: each is played on the same
samples of the hidden cards (the other hands and the deck, drawn from the cards the mover has not
seen, as the strong bot does), and the game goes on to its end with the playout policy of
``bots.strategy`` for every player. A candidate's value is the mean of the mover's final margin
over those playouts: their final score (score less the cards left in hand) less the best final
score of the other players still in the game. The best candidate is the analysis' best move; the
move's **cost** is how much less the move played is worth than it, in points, less one standard
error of that difference: what the samples make sure of, so that a move as good as the best is
not marked for the luck of the cards drawn (0 when the move played is the best, or not surely
worse). Candidates that fall clearly behind are dropped as the samples come in; the move played
never is. Each move gets ``budget`` seconds of the CPU (at most ``WALL_FACTOR`` times as long on
the clock, on a busy machine).

Marks, by cost (``MARKS``): **good** under 2.5 points, **inaccurate** from 2.5, **mistake** from 6,
**blunder** from 12. A move without choice (one legal move) is **forced**: not judged, and left out
of the figures. A player's figures are the total and the mean cost of their judged moves and an
**accuracy**: the mean over those moves of ``100 * exp(-cost / 6)``, so 100 for a game without a
point lost, about 66 for a mean cost of 2.5 a move, 37 for 6.

>>> from engine import random_game
>>> record = random_game(["ann", "bob"], seed=3)
>>> analysis = analyse_record(record, budget=0.01, seed=1, max_rounds=2)
>>> len(analysis.moves) == len(record.moves), sorted(analysis.players)
(True, ['ann', 'bob'])
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bots.strategy import BotView, bot_view
from bots.strategy.evaluate import ELIMINATED, MoveJudge, Weights
from bots.strategy.playout import Playout, PlayoutMove, playout_move
from engine import GameRecord, Move, Position, legal_moves, parse_leave, play
from engine.rules import leave

#: the version of the analysis' method: an analysis kept in the store says which made it
VERSION = 1
#: seconds of one core the analysis spends on one move by default
DEFAULT_BUDGET = 0.75
#: the marks, each with the cost (points) from which a move earns it, from the best down
MARKS: tuple[tuple[str, float], ...] = (
    ("good", 0.0),
    ("inaccurate", 2.5),
    ("mistake", 6.0),
    ("blunder", 12.0),
)
#: a move's judgement ends after this many times its budget on the clock, should the machine be
#: too busy to give it its budget of CPU sooner
WALL_FACTOR = 4.0
#: the mark of a move that had no alternative
FORCED = "forced"
#: points of cost that take a move's accuracy down to 1/e (37 %)
ACCURACY_SCALE = 6.0


@dataclass(frozen=True, slots=True)
class Settings:
    """Knobs of the analysis."""

    #: how many of the greedy judge's best moves are compared with the move played
    candidates: int = 6
    #: every this many rounds, candidates clearly behind the leader are dropped ...
    prune_every: int = 6
    #: ... by this many standard errors of the paired difference (never the move played)
    prune_z: float = 2.5
    #: rounds played whatever the budget, so that even a tiny budget gives an estimate
    min_rounds: int = 3


@dataclass(frozen=True, slots=True)
class MoveAnalysis:
    """One move judged. ``value`` and ``best_value`` are the mover's expected final margin after
    the move played and after the best move (``None`` for a forced move, a player leaving, or a
    move the server played for its player: ``auto``, ``"clock"`` or ``"bot"``, not judged)."""

    number: int
    player: str
    move: str
    mark: str | None
    cost: float
    best: str | None
    value: float | None
    best_value: float | None
    samples: int
    auto: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "player": self.player,
            "move": self.move,
            "mark": self.mark,
            "cost": round(self.cost, 2),
            "best": self.best,
            "value": None if self.value is None else round(self.value, 2),
            "best_value": None if self.best_value is None else round(self.best_value, 2),
            "samples": self.samples,
            "auto": self.auto,
        }


@dataclass(frozen=True, slots=True)
class PlayerFigures:
    """A player's figures over their judged moves."""

    name: str
    moves: int
    total_cost: float
    mean_cost: float
    accuracy: float
    marks: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "moves": self.moves,
            "total_cost": round(self.total_cost, 2),
            "mean_cost": round(self.mean_cost, 2),
            "accuracy": round(self.accuracy, 1),
            "marks": dict(self.marks),
        }


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    """Every move of a game judged, and each player's figures."""

    moves: tuple[MoveAnalysis, ...]
    players: dict[str, PlayerFigures]
    budget: float
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        """The analysis as JSON: what the store keeps and ``GET /api/games/ID/analysis`` answers."""
        return {
            "version": VERSION,
            "budget": self.budget,
            "seconds": round(self.seconds, 2),
            "thresholds": {name: cost for name, cost in MARKS},
            "moves": [m.to_dict() for m in self.moves],
            "players": {name: f.to_dict() for name, f in self.players.items()},
        }


def mark_of(cost: float) -> str:
    """The mark a move of ``cost`` points earns.

    >>> mark_of(0.0), mark_of(3.0), mark_of(6.0), mark_of(20.0)
    ('good', 'inaccurate', 'mistake', 'blunder')
    """
    found = MARKS[0][0]
    for name, least in MARKS:
        if cost >= least:
            found = name
    return found


def accuracy_of(costs: list[float]) -> float:
    """The accuracy of moves of these costs, 0 to 100 (100 for none).

    >>> accuracy_of([0.0, 0.0]), round(accuracy_of([6.0]), 1)
    (100.0, 36.8)
    """
    if not costs:
        return 100.0
    return 100.0 * sum(math.exp(-c / ACCURACY_SCALE) for c in costs) / len(costs)


def figures(names: tuple[str, ...], moves: tuple[MoveAnalysis, ...]) -> dict[str, PlayerFigures]:
    """Each player's figures over their judged moves (not the forced ones)."""
    found = {}
    for name in names:
        judged = [m for m in moves if m.player == name and m.mark not in (None, FORCED)]
        costs = [m.cost for m in judged]
        total = sum(costs)
        found[name] = PlayerFigures(
            name=name,
            moves=len(judged),
            total_cost=total,
            mean_cost=total / len(judged) if judged else 0.0,
            accuracy=accuracy_of(costs),
            marks=dict(Counter(m.mark for m in judged if m.mark is not None)),
        )
    return found


def margin(game: Playout, seat: int) -> float:
    """``seat``'s final margin in a finished playout: its final score less the best final score
    of the others still in the game. An eliminated player ranks below all of those, so its margin
    is never above 0."""
    finals = game.final_scores()
    others = [finals[i] for i in range(len(finals)) if i != seat and i not in game.eliminated]
    if not others:
        return float(finals[seat])
    value = float(finals[seat] - max(others))
    return min(value, 0.0) if seat in game.eliminated else value


class _Policy:
    """The playout policy: the strategies' greedy policy for every player, to the end."""

    def __init__(self) -> None:
        self.weights = Weights(exposure=0.0)

    def finish(self, game: Playout, rng: random.Random) -> Playout:
        while not game.is_over():
            game.play(game.greedy_move(self.weights, rng))
        return game


def _after(root: Position, base: Playout, move: Move, converted: PlayoutMove | None) -> Playout:
    """The sample ``base`` of ``root`` after ``move``."""
    if converted is None:  # a stammtisch's three or four cards: the engine plays it
        return Playout(play(base.to_position(root), move).position)
    game = base.copy()
    game.play(converted)
    return game


@dataclass(frozen=True, slots=True)
class Judgement:
    """A move judged: the move played and the best one (canonical texts), each one's value (the
    mover's mean final margin over ``rounds`` samples), and the cost of the move played."""

    played: str
    value: float
    best: str
    best_value: float
    cost: float
    rounds: int


def judge_move(
    view: BotView,
    played: str,
    *,
    budget: float,
    rng: random.Random,
    settings: Settings | None = None,
    max_rounds: int | None = None,
) -> Judgement | None:
    """Judge the move ``played`` from ``view`` (the mover's own information); ``None`` when the
    mover had one legal move only. Stops once this process has spent ``budget`` seconds of CPU
    on it, or ``WALL_FACTOR`` times as long has passed on the clock (a busy machine), after at
    least ``settings.min_rounds`` rounds; or after ``max_rounds`` rounds."""
    settings = settings or Settings()
    root = view.determinize()
    moves = legal_moves(root)
    if len(moves) <= 1:
        return None
    by_text = {m.text: m for m in moves}
    played_move = by_text.get(played)
    if played_move is None:  # the record's spelling: the engine's canonical text
        played_move = by_text[play(root, played).move]
    judge = MoveJudge(root, Weights(), Counter(view.unseen))
    ranked = sorted(moves, key=lambda m: -judge.value(m))
    candidates = [played_move]
    for move in ranked:
        if len(candidates) > settings.candidates:
            break
        if move.text != played_move.text and judge.value(move) > ELIMINATED:
            candidates.append(move)
    if len(candidates) == 1:
        candidates.append(ranked[0] if ranked[0].text != played_move.text else ranked[1])
    converted = [playout_move(m) for m in candidates]
    board = Playout(root)
    policy = _Policy()
    results: list[list[float]] = [[] for _ in candidates]
    live = list(range(len(candidates)))
    cpu_deadline = time.process_time() + budget
    wall_deadline = time.perf_counter() + WALL_FACTOR * budget
    rounds = 0
    while True:
        if max_rounds is not None and rounds >= max_rounds:
            break
        if rounds >= settings.min_rounds and (
            time.process_time() >= cpu_deadline or time.perf_counter() >= wall_deadline
        ):
            break
        hands, deck = view.deal(rng)
        base = board.dealt(hands, deck)
        seed = rng.getrandbits(64)
        for i in live:
            # common random numbers: every candidate meets the same cards and the same chances
            game = policy.finish(_after(root, base, candidates[i], converted[i]), random.Random(seed))
            results[i].append(margin(game, view.seat))
        rounds += 1
        if rounds % settings.prune_every == 0 and len(live) > 2:
            live = _prune(live, results, rounds, settings.prune_z)
    means = {i: sum(results[i]) / rounds for i in live}
    best = max(live, key=lambda i: (means[i], i == 0))
    cost = 0.0
    if best != 0:
        # what the move played surely lost: the paired difference less one standard error, so
        # that the luck of the samples does not mark a move that is as good as the best
        d, se = _paired(results[best], results[0])
        cost = max(0.0, d - se)
    return Judgement(played_move.text, means[0], candidates[best].text, means[best], cost, rounds)


def _paired(a: list[float], b: list[float]) -> tuple[float, float]:
    """The mean of ``a - b`` sample by sample, and its standard error."""
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    n = len(diffs)
    d = sum(diffs) / n
    return d, math.sqrt(sum((x - d) ** 2 for x in diffs) / max(1, n - 1) / n)


def _prune(live: list[int], results: list[list[float]], rounds: int, z: float) -> list[int]:
    """The live candidates less those clearly behind the leader on the samples both met; the move
    played (index 0) always stays."""

    def mean(i: int) -> float:
        return sum(results[i]) / rounds

    leader = max(live, key=mean)
    keep = []
    for i in live:
        if i in (0, leader):
            keep.append(i)
            continue
        d, se = _paired(results[i], results[leader])
        if d + z * se >= 0:
            keep.append(i)
    return keep


def analyse_record(
    record: GameRecord,
    *,
    budget: float = DEFAULT_BUDGET,
    seed: int = 0,
    settings: Settings | None = None,
    max_rounds: int | None = None,
    auto: Mapping[int, str] | None = None,
) -> GameAnalysis:
    """Judge every move of ``record`` (a finished game's, or any), ``budget`` seconds a move.
    An entry ``leave NAME`` is listed without a mark, and so is a move the server played for its
    player (``auto``: how, by move number from 1): neither counts in the player's figures."""
    auto = auto or {}
    started = time.perf_counter()
    rng = random.Random(seed)
    position = record.start()
    judged: list[MoveAnalysis] = []
    for number, text in enumerate(record.moves, 1):
        leaver = parse_leave(text)
        if leaver is not None:
            judged.append(MoveAnalysis(number, leaver, text, None, 0.0, None, None, None, 0))
            position = leave(position, leaver).position
            continue
        mover = position.to_move
        name = position.players[mover].name
        if number in auto:
            judged.append(MoveAnalysis(number, name, text, None, 0.0, None, None, None, 0, auto[number]))
            position = play(position, text).position
            continue
        found = judge_move(
            bot_view(position, mover), text, budget=budget, rng=rng, settings=settings, max_rounds=max_rounds
        )
        if found is None:
            judged.append(MoveAnalysis(number, name, text, FORCED, 0.0, None, None, None, 0))
        else:
            costly = round(found.cost, 2) > 0  # (as it is written: a cost of 0.00 has no better move)
            judged.append(
                MoveAnalysis(
                    number,
                    name,
                    found.played,
                    mark_of(found.cost),
                    found.cost,
                    found.best if costly else found.played,
                    found.value,
                    found.best_value if costly else found.value,
                    found.rounds,
                )
            )
        position = play(position, text).position
    moves = tuple(judged)
    return GameAnalysis(moves, figures(record.players, moves), budget, time.perf_counter() - started)
