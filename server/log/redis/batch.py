"""Redis commands of many callers sent together: every command that comes while a round trip is on
its way goes in the next, all in one pipeline (not a transaction). A node's moves (each its own
fenced script call, :mod:`server.log.redis.moves`) and what its relay publishes to other nodes
share one, so that a move's write and the patches of another room's move cost one round trip.

While commands keep coming, a round trip leaves at most once a ``window`` (a node's is
``--redis-window``): a node pays for each round trip (the system calls, redis-py's Python around
them, the other node woken by what it publishes) far more than for each command in it, so
gathering a window's worth of moves and messages is what keeps a cluster's CPU a move near one
node's. The first command after a pause goes at once. Whoever gathers commands of their own (the
relay, its messages a node each) is asked for them just before each round trip leaves
(:meth:`Batched.gathers`).

Each caller gets its own command's reply, or its error: an error Redis answers for one command
touches no other (a command the client cannot even encode fails its whole batch; none is sent).
Commands of one caller that waits for each reply before it sends the next reach Redis in order.
A caller that asks for a replica's copy (``replicated``) gets, with its reply, how many replicas
took the batch its command went in: a ``WAIT`` follows such a batch, on the same connection. Those
commands go in batches of their own (a second lane), so that what needs no replica, the relay's
publishes among it, never waits for a replica that lags.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis
import structlog
from redis.exceptions import RedisError

log = structlog.get_logger("cafe.redis")

#: a command waiting: its arguments, the ``WAIT`` it asks for (ms; ``None``: none), its answer
_Pending = tuple[tuple[Any, ...], int | None, "asyncio.Future[tuple[Any, int]]"]

_SHARED: weakref.WeakKeyDictionary[aioredis.Redis, Batched] = weakref.WeakKeyDictionary()


def batched(client: aioredis.Redis) -> Batched:
    """The one :class:`Batched` of ``client``: whoever sends through it shares its round trips."""
    found = _SHARED.get(client)
    if found is None:
        found = _SHARED[client] = Batched(client)
    return found


class Batched:
    """Sends commands to Redis through ``client``, as many together as came meanwhile, and while
    they keep coming, a round trip at most every ``window`` seconds (0: each as soon as the last
    is back)."""

    def __init__(self, client: aioredis.Redis, window: float = 0.0) -> None:
        self.redis = client
        self.window = window
        #: the lane of the commands that ask for a replica's copy, once one does
        self._replicated: Batched | None = None
        self._pending: list[_Pending] = []
        self._task: asyncio.Task[None] | None = None
        #: when the last round trip left (the loop's clock)
        self._left = float("-inf")
        #: called before each round trip leaves, to submit what their owners gathered
        self._gatherers: list[Callable[[], None]] = []
        #: round trips made, and commands sent (what the tests and a profile look at)
        self.trips = 0
        self.sent = 0

    async def call(self, *args: Any) -> Any:
        """The reply to the command ``args``; raises its error (a ``RedisError``)."""
        reply, _ = await self._queue(args, None)
        return reply

    def submit(self, *args: Any) -> asyncio.Future[tuple[Any, int]]:
        """``call`` for a caller that sends several at once: what will hold the reply (with 1)."""
        return self._queue(args, None)

    async def call_replicated(self, wait_ms: int, *args: Any) -> tuple[Any, int]:
        """The reply to ``args``, and how many replicas took it within ``wait_ms``."""
        if self._replicated is None:
            self._replicated = Batched(self.redis, self.window)
        return await self._replicated._queue(args, wait_ms)

    def _queue(self, args: tuple[Any, ...], wait_ms: int | None) -> asyncio.Future[tuple[Any, int]]:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[tuple[Any, int]] = loop.create_future()
        self._pending.append((args, wait_ms, done))
        self.wake()
        return done

    def gathers(self, gather: Callable[[], None]) -> None:
        """Call ``gather`` just before each round trip leaves: it submits what its owner gathered
        since the last one (and calls :meth:`wake` when it has something)."""
        self._gatherers.append(gather)

    def wake(self) -> None:
        """A round trip is wanted: one leaves this turn of the loop, or a window after the last."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._flush(), name="redis:batched")

    async def _flush(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            # what else is ready this turn of the loop goes along, and while commands keep coming,
            # what comes within the window since the last round trip left
            await asyncio.sleep(max(0.0, self._left + self.window - loop.time()))
            for gather in self._gatherers:
                try:
                    gather()
                except Exception:  # (one gatherer's failure neither stops the others nor the batch)
                    log.exception("gather_failed")
            if not self._pending:
                return
            self._left = loop.time()
            # all that waits goes, however much: what a gatherer submitted was checked against
            # the answers of the last round trip, and a backlog (after Redis stalled) drains at once
            batch, self._pending = self._pending, []
            try:
                answers = await self._send(batch)
            except RedisError as e:
                answers = [e] * len(batch)
            except BaseException as e:  # (cancelled with the loop: nobody is left waiting)
                for _, _, done in batch:
                    if not done.done():
                        done.set_exception(RedisError(str(e) or type(e).__name__))
                raise
            for (_, _, done), answer in zip(batch, answers, strict=True):
                if done.done():  # (its caller stopped waiting)
                    continue
                if isinstance(answer, BaseException):
                    done.set_exception(answer)
                else:
                    done.set_result(answer)

    async def _send(self, batch: list[_Pending]) -> list[tuple[Any, int] | BaseException]:
        waits = [w for _, w, _ in batch if w is not None]
        async with self.redis.pipeline(transaction=False) as pipe:
            for args, _, _ in batch:
                pipe.execute_command(*args)
            if waits:
                pipe.wait(1, max(waits))
            replies = await pipe.execute(raise_on_error=False)
        self.trips += 1
        self.sent += len(replies)
        copies: Any = replies.pop() if waits else 1
        answers: list[tuple[Any, int] | BaseException] = []
        for (_, wait_ms, _), reply in zip(batch, replies, strict=True):
            if isinstance(reply, BaseException):
                answers.append(reply)
            elif wait_ms is None:
                answers.append((reply, 1))
            elif isinstance(copies, BaseException):
                answers.append(copies)
            else:
                answers.append((reply, int(copies)))
        return answers
