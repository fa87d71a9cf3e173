"""Where the server's bots think: in a few worker processes of their own, so that however many bot
games run, the event loop that serves everyone else never waits for one (a thread would still hold
the interpreter's lock while it searches)."""

from __future__ import annotations

import asyncio
import random
from typing import Any

from bots.strategy import BotView, bot_view, get_strategy
from engine import Position
from server.workers import Workers


def choose(strategy: str, budget: float, view: BotView, seed: str) -> str:
    """The move ``strategy`` chooses in ``view`` (run in a worker process, or here)."""
    kwargs: dict[str, Any] = {"budget": budget} if strategy == "strong" else {}
    return get_strategy(strategy, **kwargs).choose(view, random.Random(seed))


class BotPool:
    """``workers`` processes for the bots' moves, started when the first bot thinks; with 0, the
    bots think in this process (the strong one in a thread)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool = Workers(workers)

    async def choose(self, strategy: str, budget: float, position: Position, seed: str) -> str:
        """The move of the bot ``strategy`` for the player to move in ``position``."""
        view = bot_view(position, position.to_move)
        if self.workers == 0:
            if strategy == "strong":
                return await asyncio.to_thread(choose, strategy, budget, view, seed)
            return choose(strategy, budget, view, seed)
        move: str = await self._pool.run(choose, strategy, budget, view, seed)
        return move

    def close(self) -> None:
        self._pool.close()
