"""The strong strategy: Monte-Carlo search over determinizations of the hidden cards.

Each iteration samples the hidden cards (the other hands and the deck) consistently with what the
bot has seen, plays a candidate move on that sample and plays the game on with a fast greedy
policy for every player, then scores the result by the bot's margin over its best opponent.
Candidates are the best moves by the greedy judge; the playouts are spread among them with UCB1,
and every candidate meets the same samples in turn (common random numbers), so that the moves are
compared on the same cards.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from dataclasses import dataclass

from bots.strategy.evaluate import ELIMINATED, MoveJudge, Weights, hand_penalty
from bots.strategy.view import BotView
from engine import Move, Position, is_over, legal_moves, outcome, play

#: margin (in points) that stands for a decided game: a win or a loss by elimination
DECIDED = 100.0


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """Knobs of the search."""

    #: how many of the greedy judge's best moves the search compares
    candidates: int = 8
    #: plies played after the candidate before the position is scored (``None``: to the end)
    depth: int | None = None
    #: chance that a playout move is a uniformly random legal move instead of the greedy one
    epsilon: float = 0.0
    #: weight of the margin in the playout result; the rest is the win (1), draw (0.5) or loss (0)
    margin_scale: float = 50.0


class StrongStrategy:
    """Flat Monte-Carlo search over determinizations, within ``budget`` seconds per move (and at
    most ``max_iterations`` playouts, which makes it deterministic for a given ``rng``)."""

    name = "strong"

    def __init__(
        self,
        budget: float = 1.0,
        max_iterations: int | None = None,
        settings: SearchSettings | None = None,
        weights: Weights | None = None,
    ) -> None:
        self.budget = budget
        self.max_iterations = max_iterations
        self.settings = settings or SearchSettings()
        self.weights = weights or Weights()
        self.playout_weights = Weights(exposure=0.0)
        self.last_iterations = 0

    def choose(self, view: BotView, rng: random.Random) -> str:
        deadline = time.perf_counter() + self.budget
        root = view.determinize()
        moves = legal_moves(root)
        if not moves:
            raise ValueError("there is no legal move: the game is over")
        judge = MoveJudge(root, self.weights, Counter(view.unseen))
        ranked = sorted(zip((judge.value(m) for m in moves), moves, strict=True), key=lambda vm: -vm[0])
        if len(ranked) == 1 or ranked[0][0] <= ELIMINATED:
            return ranked[0][1].text
        candidates = [m for v, m in ranked[: self.settings.candidates] if v > ELIMINATED]
        if len(candidates) == 1:
            return candidates[0].text
        totals = [0.0] * len(candidates)
        counts = [0] * len(candidates)
        iterations = 0
        limit = self.max_iterations
        while limit is None or iterations < limit:
            if limit is None and time.perf_counter() >= deadline:
                break
            sample = view.determinize(rng)
            playout_seed = rng.getrandbits(64)
            for i, move in enumerate(candidates):
                totals[i] += self.playout(sample, move, view.seat, random.Random(playout_seed))
                counts[i] += 1
                iterations += 1
                if limit is not None and iterations >= limit:
                    break
        self.last_iterations = iterations
        best = max(
            range(len(candidates)),
            key=lambda i: (totals[i] / counts[i] if counts[i] else -math.inf, -i),
        )
        return candidates[best].text

    def playout(self, sample: Position, move: Move, seat: int, rng: random.Random) -> float:
        """Play ``move`` on ``sample``, then the greedy policy for everyone; the result for ``seat``."""
        position = play(sample, move).position
        depth = self.settings.depth
        plies = 0
        while not is_over(position) and (depth is None or plies < depth):
            position = play(position, self.policy(position, rng)).position
            plies += 1
        return self.score(position, seat)

    def policy(self, position: Position, rng: random.Random) -> Move:
        moves = legal_moves(position)
        if self.settings.epsilon and rng.random() < self.settings.epsilon:
            return rng.choice(moves)
        judge = MoveJudge(position, self.playout_weights)
        best: list[Move] = []
        top = -math.inf
        for m in moves:
            v = judge.value(m)
            if v > top + 1e-9:
                top, best = v, [m]
            elif v >= top - 1e-9:
                best.append(m)
        return best[0] if len(best) == 1 else rng.choice(best)

    def score(self, position: Position, seat: int) -> float:
        """A playout's result for ``seat`` in [0, 1]: the win, draw or loss blended with the margin
        over the best opponent (scores less the cards still in hand)."""
        out = outcome(position)
        players = position.players
        if out is not None:
            mine = out.final_scores[players[seat].name]
            others = [out.final_scores[players[i].name] for i in position.remaining() if i != seat]
            place = out.places[players[seat].name]
            if seat in position.eliminated:
                margin = -DECIDED
            elif not others:
                margin = DECIDED
            else:
                margin = mine - max(others)
            won = 1.0 if place == 1 and margin > 0 else 0.5 if place == 1 else 0.0
        else:
            finals = [p.score - hand_penalty(p.hand) for p in players]
            remaining = position.remaining()
            if seat not in remaining:
                margin = -DECIDED
            else:
                others = [finals[i] for i in remaining if i != seat]
                margin = max(-DECIDED, min(DECIDED, finals[seat] - max(others))) if others else DECIDED
            won = 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0
        scale = self.settings.margin_scale
        return 0.5 * won + 0.5 * (0.5 + max(-scale, min(scale, margin)) / (2 * scale))
