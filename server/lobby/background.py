"""Jobs a part of the lobby runs on its own: kept until they end, so that none is lost to the
garbage collector, and a failure logged (the log may be out of reach just now), never raised."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

import structlog


class Background:
    """The jobs running in the background; ``log`` is the owner's logger, ``tasks`` those running."""

    def __init__(self, log: structlog.stdlib.BoundLogger) -> None:
        self._log = log
        self.tasks: set[asyncio.Task[None]] = set()

    def run(self, job: Awaitable[None]) -> None:
        """Run ``job`` on its own; a failure is logged as ``background_failed``."""

        async def run() -> None:
            try:
                await job
            except Exception as e:
                self._log.warning("background_failed", error=repr(e))

        task = asyncio.get_running_loop().create_task(run())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
