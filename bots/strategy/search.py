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
from dataclasses import dataclass

from bots.strategy.evaluate import ELIMINATED, MoveJudge, Weights
from bots.strategy.playout import Playout, PlayoutMove, playout_move
from bots.strategy.view import BotView
from engine import Move, Position, legal_moves, play
from engine.rules import DECK_END

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
    #: every this many rounds, drop the candidates that are clearly worse than the leader ...
    prune_every: int = 8
    #: ... by this many standard errors of the paired difference; the search stops early when
    #: the leader beats all others by ``stop_z`` of them
    prune_z: float = 2.0
    stop_z: float = 3.0
    #: the spread (points) of the final margin as a playout sees it: at the end of the game, and
    #: its growth with the square root of the turns left
    final_spread: float = 2.0
    spread_per_turn: float = 3.0


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
    (``ThinkingClock``; and at most ``max_iterations`` playouts, which makes it deterministic for a
    given ``rng``)."""

    name = "strong"

    def __init__(
        self,
        budget: float = DEFAULT_BUDGET,
        max_iterations: int | None = None,
        settings: SearchSettings | None = None,
        weights: Weights | None = None,
    ) -> None:
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
        started = time.perf_counter()
        try:
            return self._search(view, rng, started + self.clock.allowance())
        finally:
            self.clock.spent(time.perf_counter() - started)

    def _search(self, view: BotView, rng: random.Random, deadline: float) -> str:
        root = view.determinize()
        moves = legal_moves(root)
        if not moves:
            raise ValueError("there is no legal move: the game is over")
        judge = MoveJudge(root, self.weights, Counter(view.unseen))
        ranked = sorted(zip((judge.value(m) for m in moves), moves, strict=True), key=lambda vm: -vm[0])
        candidates = [m for v, m in ranked[: self.settings.candidates] if v > ELIMINATED] or [ranked[0][1]]
        self.last_iterations = 0
        if len(candidates) == 1:
            return candidates[0].text
        converted = [playout_move(m) for m in candidates]
        # the open board, built once: each sample only deals the hidden cards anew
        board = Playout(root)
        free = sum(1 for g in view.chairs if g is None)
        depth = None if free <= self.settings.endgame_free else self.settings.depth
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
                if (limit is not None and iterations >= limit) or (
                    limit is None and time.perf_counter() >= deadline
                ):
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
            diffs = [a - b for a, b in zip(results[i], results[leader], strict=True)]
            d = sum(diffs) / rounds
            se = math.sqrt(sum((x - d) ** 2 for x in diffs) / max(1, rounds - 1) / rounds)
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
        finals = game.final_scores()
        if seat in game.eliminated:
            margin = -DECIDED
        else:
            others = [finals[i] for i in range(len(finals)) if i != seat and i not in game.eliminated]
            margin = finals[seat] - max(others) if others else DECIDED
        settings = self.settings
        if game.is_over():
            spread = settings.final_spread
        else:
            # the turns left: each takes a chair or a card of the deck, most often both
            left = max(1, min(len(game.deck) - DECK_END, game.free))
            spread = settings.final_spread + settings.spread_per_turn * math.sqrt(left)
        x = max(-30.0, min(30.0, margin / spread))
        return 1.0 / (1.0 + math.exp(-x))


def _after(root: Position, base: Playout, move: Move, converted: PlayoutMove | None) -> Playout:
    """The playout ``base`` (a sample of the hidden cards in ``root``) after ``move``."""
    if converted is None:
        return Playout(play(base.to_position(root), move).position)
    game = base.copy()
    game.play(converted)
    return game
