"""The strategy interface, and the simplest strategy: a uniformly random legal move."""

from __future__ import annotations

import random
from typing import Protocol

from bots.strategy.view import BotView
from engine import legal_moves


class Strategy(Protocol):
    """A way of choosing moves. ``choose`` sees only the bot's ``BotView`` and returns the text of
    a legal move for the bot, whose turn it is; all its chance comes from ``rng``."""

    name: str

    def choose(self, view: BotView, rng: random.Random) -> str: ...


class RandomStrategy:
    """A uniformly random legal move."""

    name = "random"

    def choose(self, view: BotView, rng: random.Random) -> str:
        moves = legal_moves(view.determinize())
        if not moves:
            raise ValueError("there is no legal move: the game is over")
        return rng.choice(moves).text
