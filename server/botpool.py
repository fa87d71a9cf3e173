"""Where the server's bots think: in a few worker processes of their own, so that however many bot
games run, the event loop that serves everyone else never waits for one (a thread would still hold
the interpreter's lock while it searches)."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from bots.strategy import BotView, bot_view, get_strategy
from engine import Position


def choose(strategy: str, budget: float, view: BotView, seed: str) -> str:
    """The move ``strategy`` chooses in ``view`` (run in a worker process, or here)."""
    kwargs: dict[str, Any] = {"budget": budget} if strategy == "strong" else {}
    return get_strategy(strategy, **kwargs).choose(view, random.Random(seed))


def follow_parent(parent: int) -> None:
    """In a worker: end as soon as the server that started it is gone. A server killed outright
    cannot shut its pool down, and its workers would go on holding memory and its log's pipe."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="follow-parent", daemon=True).start()


class BotPool:
    """``workers`` processes for the bots' moves, started when the first bot thinks; with 0, the
    bots think in this process (the strong one in a thread)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._executor: Executor | None = None

    async def choose(self, strategy: str, budget: float, position: Position, seed: str) -> str:
        """The move of the bot ``strategy`` for the player to move in ``position``."""
        view = bot_view(position, position.to_move)
        loop = asyncio.get_running_loop()
        if self.workers == 0:
            if strategy == "strong":
                return await asyncio.to_thread(choose, strategy, budget, view, seed)
            return choose(strategy, budget, view, seed)
        if self._executor is None:
            # a fresh interpreter per worker: forking the server would copy its threads' state
            context = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=follow_parent, initargs=(os.getpid(),)
            )
        try:
            return await loop.run_in_executor(self._executor, choose, strategy, budget, view, seed)
        except BrokenProcessPool:
            self.close()  # a worker died: the next move starts a fresh pool
            raise

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
