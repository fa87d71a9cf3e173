"""This node's room leases in Redis: who owns a room, and the fencing token of each room it owns.

A lease is a key holding ``node:epoch`` with a short expiry (:mod:`server.cluster.timings`); the
owner renews it, and every write to the room's log is fenced by its token
(:mod:`server.log.redis.scripts`). ``RELEASE`` lets a claim go only if it is still the claimer's;
the names and the tournament director's claim use it too.
"""

from __future__ import annotations

from collections.abc import Iterable

import redis.asyncio as aioredis

from server.cluster.timings import ClusterTimings
from server.log.redis.keys import PREFIX, lease_key

#: prolong each key ``KEYS[i]`` (``ARGV[1]`` ms) only while it holds ``ARGV[i + 1]``; the
#: positions (from 1) of the keys that no longer hold theirs
RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
    if redis.call('GET', key) ~= ARGV[i + 1] or redis.call('PEXPIRE', key, ARGV[1]) ~= 1 then
        lost[#lost + 1] = i
    end
end
return lost
"""
#: leases renewed at most by one call of ``RENEW`` (more go in several, one round trip still)
RENEW_AT_ONCE = 500
#: seconds a room's epoch (its leases' count) is kept after its lease was last taken: every room
#: name would otherwise stay in Redis for ever (a quick pairing's table has a new one each game);
#: a lease lasts seconds, so a writer whose token a restarted count could give again is long fenced
EPOCH_KEPT = 86_400
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
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.incr(f"{PREFIX}epoch:{key}")
            pipe.expire(f"{PREFIX}epoch:{key}", EPOCH_KEPT)
            epoch, _ = await pipe.execute()
        token = f"{self.node}:{epoch}"
        if not await self.redis.set(lease_key(key), token, nx=True, px=self.timings.lease_ms):
            return False
        self.fences[key] = token
        return True

    async def renew(self) -> list[str]:
        """Renew every lease of this node, all in one round trip to Redis; the rooms whose lease
        was lost (to a newer owner)."""
        held = list(self.fences.items())
        if not held:
            return []
        chunks = [held[i : i + RENEW_AT_ONCE] for i in range(0, len(held), RENEW_AT_ONCE)]
        async with self.redis.pipeline(transaction=False) as pipe:
            for chunk in chunks:
                keys = [lease_key(key) for key, _ in chunk]
                await self._renew(
                    keys=keys, args=[self.timings.lease_ms, *(t for _, t in chunk)], client=pipe
                )
            answers = await pipe.execute()
        return [chunk[int(i) - 1][0] for chunk, lost in zip(chunks, answers, strict=True) for i in lost]

    async def holders(self, keys: Iterable[str]) -> dict[str, str | None]:
        """The lease token of each room in ``keys`` (casefolded), if anyone owns it: one round trip."""
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return {}
        found = await self.redis.mget([lease_key(key) for key in wanted])
        return {key: None if token is None else str(token) for key, token in zip(wanted, found, strict=True)}

    async def release(self, key: str, token: str) -> None:
        """Let the lease ``token`` of the room ``key`` go, if it still holds."""
        await self._release(keys=[lease_key(key)], args=[token])

    async def release_all(self) -> None:
        """Hand every room of this node on at once, rather than when its lease runs out."""
        for room, token in list(self.fences.items()):
            await self.release(room, token)


__all__ = ["EPOCH_KEPT", "RELEASE", "RENEW", "RENEW_AT_ONCE", "Leases"]
