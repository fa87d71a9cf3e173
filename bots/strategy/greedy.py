"""The greedy strategy: the move worth most now, by points and a sensible player's tie-breaks."""

from __future__ import annotations

import random
from collections import Counter

from bots.strategy.evaluate import MoveJudge, Weights
from bots.strategy.view import BotView
from engine import legal_moves


class GreedyStrategy:
    """Takes the move with the best immediate value (``MoveJudge``): its points, plus lowering the
    hand limit, minus the worth of a joker spent, minus what it hands the next player, with the
    bar's negative places only when nothing else is left. Equal moves are drawn with ``rng``."""

    name = "greedy"

    def __init__(self, weights: Weights | None = None) -> None:
        self.weights = weights or Weights()

    def choose(self, view: BotView, rng: random.Random) -> str:
        position = view.determinize()
        moves = legal_moves(position)
        if not moves:
            raise ValueError("there is no legal move: the game is over")
        judge = MoveJudge(position, self.weights, Counter(view.unseen))
        values = [judge.value(m) for m in moves]
        top = max(values)
        return rng.choice([m for m, v in zip(moves, values, strict=True) if v >= top - 1e-9]).text
