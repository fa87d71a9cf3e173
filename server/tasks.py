"""Ending background tasks at a stop, and one task at a time per key.

On Python 3.11 a cancel can be lost: ``asyncio.wait_for``, which redis-py awaits around its reads,
returns the result of an operation that finished just as the cancel came, and the cancel is gone
(python/cpython issue 86296, fixed in 3.12). A loop that goes on after a failed round (``except
Exception``, sleep, again) then runs for ever, and a stop that awaits it once cancelled never
ends. ``cancel_and_wait`` cancels again until the task has ended.

>>> async def stubborn() -> None:
...     try:
...         await asyncio.sleep(60)
...     except asyncio.CancelledError:  # the first cancel is lost, as in a Redis call on 3.11
...         pass
...     while True:  # and the loop goes on
...         await asyncio.sleep(0.01)
>>> async def main() -> bool:
...     task = asyncio.get_running_loop().create_task(stubborn())
...     await asyncio.sleep(0)
...     return await cancel_and_wait(task, within=2.0) and task.cancelled()
>>> asyncio.run(main())
True
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

#: seconds between two cancels of a task that has not ended: time for what a task does when
#: cancelled (its ``finally``: closing a connection) to end before another cancel cuts it short
AGAIN = 0.5


async def cancel_and_wait(*tasks: asyncio.Task[object], within: float = 5.0) -> bool:
    """Cancel ``tasks`` and wait until each has ended, cancelling again every ``AGAIN`` seconds
    those still running; give up after ``within`` seconds. Whether all have ended."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    running = {task for task in tasks if not task.done()}
    while running:
        for task in running:
            task.cancel()
        left = deadline - loop.time()
        if left <= 0:
            return False
        _, pending = await asyncio.wait(running, timeout=min(AGAIN, left))
        running = pending
    return True


__all__ = ["AGAIN", "cancel_and_wait"]


class OneAtATime:
    """For each key, one task at a time in what it guards; the others wait their turn. A key's
    lock lives while a task holds it or waits for it.

    >>> async def main() -> list[str]:
    ...     guard, done = OneAtATime(), []
    ...     async def job(tag: str) -> None:
    ...         async with guard.hold("ann"):
    ...             done.append(tag + "<")
    ...             await asyncio.sleep(0.01)
    ...             done.append(">" + tag)
    ...     await asyncio.gather(job("a"), job("b"), job("c"))
    ...     return [*done, str(len(guard._locks))]
    >>> asyncio.run(main())
    ['a<', '>a', 'b<', '>b', 'c<', '>c', '0']
    """

    def __init__(self) -> None:
        #: key -> its lock and how many tasks hold it or wait for it
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    def __contains__(self, key: str) -> bool:
        """Whether a task holds ``key`` or waits for it."""
        return key in self._locks

    @contextlib.asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(key) or (asyncio.Lock(), 0)
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)
