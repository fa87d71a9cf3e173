"""Moves written to Redis together (a group commit): every move that comes while a round trip is
on its way goes in the next, with whatever else the node sends meanwhile
(:mod:`server.log.redis.batch`), one round trip whatever their number.

Each move is still its own call of the fenced script (:data:`server.log.redis.scripts.MOVE_PLAYED`),
checked against its room's lease and answered on its own: a move whose room's lease is lost fails
alone. Each room waits for its move's answer before it sends the next, so a room's moves reach
Redis in order. With ``replica`` durability a ``WAIT`` after the batch counts the replicas that
took all of it (they apply a connection's writes in order).
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
from redis.commands.core import AsyncScript
from redis.exceptions import NoScriptError, RedisError

from server.log.contract import LeaseLost, StoreUnavailable
from server.log.redis.batch import batched


def acknowledged(lease: str, result: int, copies: int, wait_ms: int | None) -> int:
    """``result``, a fenced script's answer for the room of ``lease``, once it may be acknowledged:
    ``LeaseLost`` if the lease was not this node's (-1), or if no replica took the write within
    ``wait_ms`` (``copies``: how many did; 1 where none is asked for)."""
    if result == -1:
        raise LeaseLost(lease)
    if copies < 1:
        # written here but kept nowhere else: not acknowledged, and the room is taken up again
        # from the log (which holds it), so that what the room holds and the log agree
        raise LeaseLost(f"{lease}: no replica took it within {wait_ms} ms")
    return result


class MoveWriter:
    """Writes moves with ``script`` through the client's shared batches; ``wait_ms`` (when not
    ``None``) is the ``WAIT`` for a replica, as ``replica`` durability asks."""

    def __init__(self, client: aioredis.Redis, script: AsyncScript, wait_ms: int | None) -> None:
        self.redis = client
        self.script = script
        self.wait_ms = wait_ms
        self.batch = batched(client)

    async def write(self, keys: list[str], args: list[Any]) -> int:
        """The script's answer for one move (raises ``StoreUnavailable`` when Redis cannot be
        reached, ``LeaseLost`` when its room's lease or a replica's copy is missing)."""
        try:
            try:
                reply, copies = await self._call(keys, args)
            except NoScriptError:  # Redis lost its scripts (a restart): given it again, it goes again
                await self.redis.script_load(self.script.script)
                reply, copies = await self._call(keys, args)
        except RedisError as e:
            raise StoreUnavailable(str(e) or type(e).__name__) from e
        return acknowledged(keys[0], int(reply), copies, self.wait_ms)

    async def _call(self, keys: list[str], args: list[Any]) -> tuple[Any, int]:
        command = ("EVALSHA", self.script.sha, len(keys), *keys, *args)
        if self.wait_ms is None:
            return await self.batch.call(*command), 1
        reply, copies = await self.batch.call_replicated(self.wait_ms, *command)
        return reply, copies
