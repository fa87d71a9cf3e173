"""This node's room leases in Redis: who owns a room, and the fencing token of each room it owns.

A lease is a key holding ``node:epoch`` with a short expiry (:mod:`server.cluster.timings`); the
owner renews it, and every write to the room's log is fenced by its token
(:mod:`server.log.redis.scripts`). ``RELEASE`` lets a claim go only if it is still the claimer's;
the names and the tournament director's claim use it too.
"""

from __future__ import annotations

import redis.asyncio as aioredis

from server.cluster.timings import ClusterTimings
from server.log.redis.store import PREFIX, lease_key

#: prolong a key (``ARGV[2]`` ms) only while it holds ``ARGV[1]``
RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
#: delete a key only while it holds ``ARGV[1]``
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class Leases:
    """The leases of the node ``node``: ``fences`` maps each room it owns (casefolded) to its
    token."""

    def __init__(self, redis: aioredis.Redis, node: str, timings: ClusterTimings) -> None:
        self.redis = redis
        self.node = node
        self.timings = timings
        self.fences: dict[str, str] = {}  # room (casefolded) -> this node's lease token
        self._renew = redis.register_script(RENEW)
        self._release = redis.register_script(RELEASE)

    def fence(self, room: str) -> str | None:
        """This node's token for ``room``, if it owns it."""
        return self.fences.get(room.casefold())

    async def holder(self, key: str) -> str | None:
        """The lease token (``node:epoch``) of a room, if anyone owns it."""
        holder = await self.redis.get(lease_key(key))
        return None if holder is None else str(holder)

    async def take(self, key: str) -> bool:
        """Take the lease of the room ``key`` with a new epoch, unless someone holds it."""
        epoch = await self.redis.incr(f"{PREFIX}epoch:{key}")
        token = f"{self.node}:{epoch}"
        if not await self.redis.set(lease_key(key), token, nx=True, px=self.timings.lease_ms):
            return False
        self.fences[key] = token
        return True

    async def renew(self) -> list[str]:
        """Renew every lease of this node; the rooms whose lease was lost (to a newer owner)."""
        lost = []
        for key, token in list(self.fences.items()):
            if not await self._renew(keys=[lease_key(key)], args=[token, self.timings.lease_ms]):
                lost.append(key)
        return lost

    async def release(self, key: str, token: str) -> None:
        """Let the lease ``token`` of the room ``key`` go, if it still holds."""
        await self._release(keys=[lease_key(key)], args=[token])

    async def release_all(self) -> None:
        """Hand every room of this node on at once, rather than when its lease runs out."""
        for room, token in list(self.fences.items()):
            await self.release(room, token)


__all__ = ["RELEASE", "RENEW", "Leases"]
