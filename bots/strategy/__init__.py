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
from bots.strategy.search import CLASSIC, SearchSettings, StrongStrategy
from bots.strategy.view import BotView, bot_view, view_from_dict

#: the strategies people can seat (``/addbot``, ``cafe-bot``), by name
STRATEGIES = ("random", "greedy", "strong")
#: every strategy ``get_strategy`` knows: also ``classic``, the strong search with its earlier
#: settings (``search.CLASSIC``), which ``bots.tournament`` measures the strong one against
KNOWN_STRATEGIES = (*STRATEGIES, "classic")


def get_strategy(name: str, **kwargs: Any) -> Strategy:
    """The strategy called ``name`` (one of ``KNOWN_STRATEGIES``); ``kwargs`` go to its
    constructor (e.g. ``budget=0.5`` or ``max_iterations=200`` for ``strong`` and ``classic``)."""
    if name == "random":
        return RandomStrategy(**kwargs)
    if name == "greedy":
        return GreedyStrategy(**kwargs)
    if name == "strong":
        return StrongStrategy(**kwargs)
    if name == "classic":
        return StrongStrategy(**{"settings": CLASSIC, **kwargs, "name": "classic"})
    raise ValueError(f"unknown strategy {name!r} (known: {', '.join(KNOWN_STRATEGIES)})")


__all__ = [
    "KNOWN_STRATEGIES",
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
