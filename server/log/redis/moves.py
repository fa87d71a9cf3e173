"""Moves written to Redis together (a group commit): every move that comes while a write is on its
way goes in the next, all of them in one pipeline, one round trip whatever their number.

Each move is still its own call of the fenced script (:data:`server.log.redis.scripts.MOVE_PLAYED`),
checked against its room's lease and answered on its own: a move whose room's lease is lost fails
alone. Each room waits for its move's answer before it sends the next, so a room's moves reach
Redis in order. With ``replica`` durability one ``WAIT`` after the batch counts the replicas that
took all of it (they apply a connection's writes in order).
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError, RedisError

from server.log.contract import LeaseLost, StoreUnavailable

#: moves written at most in one pipeline (what waits beyond goes in the next)
BATCH = 500

_Pending = tuple[list[str], list[Any], "asyncio.Future[int]"]


class MoveWriter:
    """Writes moves with ``script``, as many together as came meanwhile; ``wait_ms`` (when not
    ``None``) is the ``WAIT`` for a replica, as ``replica`` durability asks."""

    def __init__(self, client: aioredis.Redis, script: AsyncScript, wait_ms: int | None) -> None:
        self.redis = client
        self.script = script
        self.wait_ms = wait_ms
        self._pending: list[_Pending] = []
        self._task: asyncio.Task[None] | None = None

    async def write(self, keys: list[str], args: list[Any]) -> int:
        """The script's answer for one move (raises ``StoreUnavailable`` when Redis cannot be
        reached, ``LeaseLost`` when its room's lease or a replica's copy is missing)."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[int] = loop.create_future()
        self._pending.append((keys, args, done))
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._flush(), name="redis:moves")
        return await done

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending[:BATCH], self._pending[BATCH:]
            try:
                answers = await self._send(batch)
            except RedisError as e:
                answers = [StoreUnavailable(str(e) or type(e).__name__) for _ in batch]
            except BaseException as e:  # (cancelled with the loop: nobody is left waiting)
                for _, _, done in batch:
                    if not done.done():
                        done.set_exception(StoreUnavailable(str(e) or type(e).__name__))
                raise
            for (_, _, done), answer in zip(batch, answers, strict=True):
                if done.done():  # (its room stopped waiting)
                    continue
                if isinstance(answer, BaseException):
                    done.set_exception(answer)
                else:
                    done.set_result(answer)

    async def _send(self, batch: list[_Pending]) -> list[int | BaseException]:
        replies, copies = await self._pipeline(batch)
        counted = [copies] * len(batch)
        missing = [i for i, reply in enumerate(replies) if isinstance(reply, NoScriptError)]
        if missing:  # Redis lost its scripts (a restart): given it again, those moves go again
            await self.redis.script_load(self.script.script)
            again, copies = await self._pipeline([batch[i] for i in missing])
            for i, reply in zip(missing, again, strict=True):
                replies[i], counted[i] = reply, copies
        return [
            self._answer(keys, reply, n)
            for (keys, _, _), reply, n in zip(batch, replies, counted, strict=True)
        ]

    async def _pipeline(self, batch: list[_Pending]) -> tuple[list[Any], int]:
        """Each move's reply, and how many replicas took them all (1 when none is asked for)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for keys, args, _ in batch:
                pipe.evalsha(self.script.sha, len(keys), *keys, *args)
            if self.wait_ms is not None:
                pipe.wait(1, self.wait_ms)
            replies = await pipe.execute(raise_on_error=False)
        if self.wait_ms is None:
            return replies, 1
        waited = replies.pop()
        if isinstance(waited, BaseException):
            raise waited
        return replies, int(waited)

    def _answer(self, keys: list[str], reply: Any, copies: int) -> int | BaseException:
        if isinstance(reply, BaseException):
            return StoreUnavailable(str(reply) or type(reply).__name__)
        result = int(reply)
        if result == -1:
            return LeaseLost(keys[0])
        if copies < 1:
            # written here but kept nowhere else: not acknowledged, and the room is taken up again
            # from the log (which holds it), so that what the room holds and the log agree
            return LeaseLost(f"{keys[0]}: no replica took it within {self.wait_ms} ms")
        return result
