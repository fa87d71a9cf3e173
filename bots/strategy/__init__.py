"""Bot strategies: each decides a move from the bot's own view of the game (``BotView``).

>>> import random
>>> from engine import new_position, legal_move_texts
>>> position = new_position(["ann", "bob"], seed=1)
>>> bot = get_strategy("greedy")
>>> bot.choose(bot_view(position, position.to_move), random.Random(1)) in legal_move_texts(position)
True
"""

from __future__ import annotations

from typing import Any

from bots.strategy.base import RandomStrategy, Strategy
from bots.strategy.greedy import GreedyStrategy
from bots.strategy.search import SearchSettings, StrongStrategy
from bots.strategy.view import BotView, bot_view, view_from_dict

#: the strategies ``get_strategy`` knows, by name
STRATEGIES = ("random", "greedy", "strong")


def get_strategy(name: str, **kwargs: Any) -> Strategy:
    """The strategy called ``name`` (``random``, ``greedy`` or ``strong``); ``kwargs`` go to its
    constructor (e.g. ``budget=0.5`` or ``max_iterations=200`` for ``strong``)."""
    if name == "random":
        return RandomStrategy(**kwargs)
    if name == "greedy":
        return GreedyStrategy(**kwargs)
    if name == "strong":
        return StrongStrategy(**kwargs)
    raise ValueError(f"unknown strategy {name!r} (known: {', '.join(STRATEGIES)})")


__all__ = [
    "STRATEGIES",
    "BotView",
    "GreedyStrategy",
    "RandomStrategy",
    "SearchSettings",
    "Strategy",
    "StrongStrategy",
    "bot_view",
    "get_strategy",
    "view_from_dict",
]
