"""A stop ends although a cancel is lost: on Python 3.11 ``asyncio.wait_for``, which redis-py awaits
around its reads, may return a result and drop the cancel that came with it (``server.tasks``)."""

from __future__ import annotations

import asyncio
import contextlib

from server.app import Server
from server.lobby.seeking import LocalQueue
from server.tasks import cancel_and_wait
from tests.server.clients import TIMEOUT


class LosesOneCancel(LocalQueue):
    """A queue whose ``lead`` loses the first cancel that reaches it and answers, as a Redis call
    can on 3.11."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = asyncio.Event()
        self.lost = 0

    async def lead(self) -> bool:
        self.asked.set()
        if not self.lost:
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                self.lost += 1
        return False


async def test_the_pairing_loop_stops_although_its_cancel_is_lost(server: Server) -> None:
    """The pairing loop, stopped first when the server stops, ends at once when the cancel is lost
    in the queue's call and the loop goes on to its next round: it is cancelled again."""
    seeks = server.lobby.seeks
    await seeks.stop()  # (started with the server: started again below, on the queue that loses)
    queue = LosesOneCancel()
    seeks.queue = queue
    seeks.start()
    await asyncio.wait_for(queue.asked.wait(), TIMEOUT)
    await asyncio.wait_for(seeks.stop(), 2)
    assert queue.lost == 1


async def test_a_task_that_outlives_every_cancel_is_given_up_on_in_time() -> None:
    """``cancel_and_wait`` says ``False`` after ``within`` seconds for a task that never ends, rather
    than waiting for ever; one that ends says ``True``."""
    done = asyncio.Event()

    async def deaf() -> None:
        while not done.is_set():
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(60)

    loop = asyncio.get_running_loop()
    task = loop.create_task(deaf())
    await asyncio.sleep(0)
    started = loop.time()
    assert await cancel_and_wait(task, within=0.3) is False
    assert 0.3 <= loop.time() - started < 2 and not task.done()
    done.set()
    assert await cancel_and_wait(task, within=TIMEOUT) is True
    assert task.done()
