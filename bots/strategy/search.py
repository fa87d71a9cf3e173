"""The strong strategy: Monte-Carlo search over determinizations of the hidden cards.

Each round samples the hidden cards (the other hands and the deck) consistently with what the bot
has seen. On that sample, every candidate move is played and the game goes on with the greedy
policy for every player (``Playout``): for a few plies, or to the end once few chairs are left
free. A playout's result is the bot's chance to win judged from its margin over the best opponent
(scores less the cards in hand) and how much of the game is left. Candidates are the greedy
judge's best moves; all of them meet the same samples and the same chances (common random
numbers), so that they are compared on the same cards. Candidates clearly behind the leader are
dropped as the search goes on, and it stops early once the leader is clearly best; the move with
the best mean result is played. The time a move leaves unused goes to later moves
(``ThinkingClock``).
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from bots.strategy.evaluate import ELIMINATED, MoveJudge, Weights
from bots.strategy.playout import Playout, PlayoutMove, playout_move
from bots.strategy.view import BotView
from engine import Move, Position, legal_moves, play
from engine.rules import DECK_END, JOKER_PENALTY, NATURAL_PENALTY

#: seconds the strong strategy thinks per move unless told otherwise
DEFAULT_BUDGET = 1.0
#: margin (in points) that stands for a decided game: a win or a loss by elimination
DECIDED = 100.0


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """Knobs of the search."""

    #: how many of the greedy judge's best moves the search compares
    candidates: int = 8
    #: plies played after the candidate before the position is scored (``None``: to the end)
    depth: int | None = 4
    #: once this few chairs are free, playouts go on to the end of the game: the last turns, when
    #: guests no longer find chairs and the bar's negative places come due, decide many games
    endgame_free: int = 16
    #: the judge's best live candidate is played unless another beats it by this many standard
    #: errors of the paired difference (0: the best mean is played)
    choose_z: float = 1.0
    #: every this many rounds, drop the candidates that are clearly worse than the leader ...
    prune_every: int = 8
    #: ... by this many standard errors of the paired difference; the search stops early when
    #: the leader beats all others by ``stop_z`` of them
    prune_z: float = 2.0
    stop_z: float = 3.0
    #: the spread (points) of the final margin as a playout sees it: at the end of the game, and
    #: its growth with the square root of the turns left. A wide spread at the end makes a
    #: finished playout count its margin, not only who won: with a few dozen samples a move in
    #: the last turns is then judged on points, which vary far less than wins and losses
    final_spread: float = 8.0
    spread_per_turn: float = 3.0
    #: how a playout cut short counts the cards in hand: ``"penalty"``, each as the penalty it
    #: would cost if the game ended now; ``"worth"``, a joker as the natural card it can stand for
    #: plus what the greedy judge holds a joker to be worth while the deck lasts
    leaf_hand: str = "worth"


#: the settings ``strong`` had before a finished playout counted its margin rather than mostly
#: its win or loss (``final_spread`` 2): the ``classic`` strategy, kept to measure the strong one
#: against
CLASSIC = SearchSettings(
    candidates=8,
    depth=4,
    endgame_free=16,
    choose_z=1.0,
    prune_every=8,
    prune_z=2.0,
    stop_z=3.0,
    final_spread=2.0,
    spread_per_turn=3.0,
    leaf_hand="worth",
)


@dataclass(slots=True)
class ThinkingClock:
    """Thinking time over a game, ``budget`` seconds per move on average. A move may use the time
    earlier moves left unused (an early stop, a forced move), at most ``budget`` more, so that no
    move takes more than twice the budget; time a move overran is taken from the next ones. The
    mean time per move so stays within the budget.

    >>> clock = ThinkingClock(1.0)
    >>> clock.spent(0.25); clock.allowance()
    1.75
    >>> clock.spent(3.0); clock.allowance()
    0.0
    """

    budget: float
    #: seconds left unused so far (negative: overrun still to pay back)
    saved: float = 0.0

    def allowance(self) -> float:
        """The seconds the next move may take."""
        return max(0.0, self.budget + self.saved)

    def spent(self, seconds: float) -> None:
        """Account for a move that took ``seconds``."""
        self.saved = min(self.budget, self.saved + self.budget - seconds)


class StrongStrategy:
    """Monte-Carlo search over determinizations, within ``budget`` seconds per move on average
    (``ThinkingClock``: of the wall's time, or with ``cpu_time`` of the thread's CPU time; and at
    most ``max_iterations`` playouts, which makes it deterministic for a given ``rng``)."""

    def __init__(
        self,
        budget: float = DEFAULT_BUDGET,
        max_iterations: int | None = None,
        settings: SearchSettings | None = None,
        weights: Weights | None = None,
        name: str = "strong",
        cpu_time: bool = False,
    ) -> None:
        self.name = name
        #: the clock the budget is counted on: the wall's, or the thinking thread's CPU time (a
        #: busy machine then makes a move slower, not weaker)
        self.now = time.thread_time if cpu_time else time.perf_counter
        self.budget = budget
        self.max_iterations = max_iterations
        self.settings = settings or SearchSettings()
        self.weights = weights or Weights()
        self.playout_weights = Weights(
            limit=self.weights.limit,
            joker=self.weights.joker,
            joker_full_deck=self.weights.joker_full_deck,
            joker_no_deck=self.weights.joker_no_deck,
            exposure=0.0,
            discard=self.weights.discard,
        )
        #: playouts run for the last move chosen (for tests and tuning)
        self.last_iterations = 0
        self.clock = ThinkingClock(budget)

    def choose(self, view: BotView, rng: random.Random) -> str:
        started = self.now()
        try:
            return self._search(view, rng, started + self.clock.allowance())
        finally:
            self.clock.spent(self.now() - started)

    def _search(self, view: BotView, rng: random.Random, deadline: float) -> str:
        root = view.determinize()
        moves = legal_moves(root)
        if not moves:
            raise ValueError("there is no legal move: the game is over")
        judge = MoveJudge(root, self.weights, Counter(view.unseen))
        ranked = sorted(zip((judge.value(m) for m in moves), moves, strict=True), key=lambda vm: -vm[0])
        settings = self.settings
        candidates = [m for v, m in ranked[: settings.candidates] if v > ELIMINATED] or [ranked[0][1]]
        self.last_iterations = 0
        if len(candidates) == 1:
            return candidates[0].text
        converted = [playout_move(m) for m in candidates]
        # the open board, built once: each sample only deals the hidden cards anew
        board = Playout(root)
        free = sum(1 for g in view.chairs if g is None)
        depth = None if free <= settings.endgame_free else settings.depth
        # results[i][r]: candidate i's result on the r-th sample; every live candidate meets
        # every sample, and a round cut short by the budget is left out
        results: list[list[float]] = [[] for _ in candidates]
        live = list(range(len(candidates)))
        limit = self.max_iterations
        iterations = 0
        rounds = 0
        while True:
            hands, deck = view.deal(rng)
            base = board.dealt(hands, deck)
            seed = rng.getrandbits(64)
            done: list[float] = []
            for i in live:
                if (limit is not None and iterations >= limit) or (limit is None and self.now() >= deadline):
                    break
                game = _after(root, base, candidates[i], converted[i])
                done.append(self.playout(game, view.seat, depth, random.Random(seed)))
                iterations += 1
            if len(done) < len(live):
                break
            for i, value in zip(live, done, strict=True):
                results[i].append(value)
            rounds += 1
            if rounds % self.settings.prune_every == 0:
                live = self._prune(live, results, rounds)
                if len(live) == 1:
                    break  # the leader is clearly best: the rest of the budget is saved
        self.last_iterations = iterations
        if rounds == 0:
            return candidates[0].text
        best = max(live, key=lambda i: (sum(results[i]) / rounds, -i))
        # the judge's favourite among the live candidates stays unless the search clearly beats it:
        # with few samples the best mean of several is mostly luck
        favourite = min(live)
        if best != favourite and settings.choose_z > 0:
            d, se = _paired(results[best], results[favourite])
            if d < settings.choose_z * se:
                best = favourite
        return candidates[best].text

    def _prune(self, live: list[int], results: list[list[float]], rounds: int) -> list[int]:
        """The live candidates less those clearly worse than the leader, judged on the samples
        both have met (paired differences, so that the luck of the cards cancels out). The
        leader stays alone only when it beats every other by ``stop_z`` standard errors."""

        def mean(i: int) -> float:
            return sum(results[i]) / rounds

        leader = max(live, key=mean)
        keep = [leader]
        closest = -math.inf
        for i in live:
            if i == leader:
                continue
            d, se = _paired(results[i], results[leader])
            if d + self.settings.prune_z * se >= 0:
                keep.append(i)
            closest = max(closest, d + self.settings.stop_z * se)
        if len(keep) == 1 and closest >= 0:
            keep = sorted(live, key=mean)[-2:]
        return keep

    def playout(self, game: Playout, seat: int, depth: int | None, rng: random.Random) -> float:
        """Play on with the greedy policy for everyone for ``depth`` plies (``None``: to the end);
        the result for ``seat``."""
        plies = 0
        weights = self.playout_weights
        while not game.is_over() and (depth is None or plies < depth):
            game.play(game.greedy_move(weights, rng))
            plies += 1
        return self.result(game, seat)

    def result(self, game: Playout, seat: int) -> float:
        """A playout's result for ``seat`` in [0, 1]: the chance of winning from its margin over the
        best opponent (scores less the cards in hand), the more certain the less of the game is
        left. A finished game is a win (about 1) or a loss (about 0) with the margin as tie-break."""
        over = game.is_over()
        if over or self.settings.leaf_hand == "penalty":
            finals: Sequence[float] = game.final_scores()
        else:
            finals = self._leaf_scores(game)
        if seat in game.eliminated:
            margin = -DECIDED
        else:
            others = [finals[i] for i in range(len(finals)) if i != seat and i not in game.eliminated]
            margin = finals[seat] - max(others) if others else DECIDED
        settings = self.settings
        if over:
            spread = settings.final_spread
        else:
            # the turns left: each takes a chair or a card of the deck, most often both
            left = max(1, min(len(game.deck) - DECK_END, game.free))
            spread = settings.final_spread + settings.spread_per_turn * math.sqrt(left)
        x = max(-30.0, min(30.0, margin / spread))
        return 1.0 / (1.0 + math.exp(-x))

    def _leaf_scores(self, game: Playout) -> list[float]:
        """Scores less the cards in hand as a game cut short stands: a natural card at its
        penalty, a joker at the natural card's penalty less the worth the greedy judge gives a
        joker in hand (``Weights.joker``, falling to nothing as the deck runs out), and no less
        than its own penalty once that worth is gone."""
        w = self.weights
        span = w.joker_full_deck - w.joker_no_deck
        share = min(1.0, max(0.0, (len(game.deck) - w.joker_no_deck) / span))
        joker_cost = NATURAL_PENALTY - w.joker * share + (JOKER_PENALTY - NATURAL_PENALTY) * (1.0 - share)
        return [
            score
            if i in game.eliminated
            else score - sum(joker_cost if c.is_joker else NATURAL_PENALTY for c in game.hands[i])
            for i, score in enumerate(game.scores)
        ]


def _paired(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """The mean of the paired differences ``a - b`` and its standard error."""
    n = len(a)
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    d = sum(diffs) / n
    return d, math.sqrt(sum((x - d) ** 2 for x in diffs) / max(1, n - 1) / n)


def _after(root: Position, base: Playout, move: Move, converted: PlayoutMove | None) -> Playout:
    """The playout ``base`` (a sample of the hidden cards in ``root``) after ``move``."""
    if converted is None:
        return Playout(play(base.to_position(root), move).position)
    game = base.copy()
    game.play(converted)
    return game
