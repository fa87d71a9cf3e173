"""Quick pairing's queue for a cluster: one queue in Redis for every node, paired by the one node
that holds a short lease (renewed while it lives, taken over by another when it dies), as rooms
are run.

========================  ======================================================================
``cafe:seeks``            hash: casefolded name -> the seek (JSON: seeker, identity, node)
``cafe:seeks:pairer``     the node that pairs now (expires ``LEASE_MS`` after its last renewal)
========================  ======================================================================

A seek of a node that died is dropped by the pairer (its people lost their connections).
"""

from __future__ import annotations

from collections.abc import Sequence

from server.cluster.node import ClusterDirectory
from server.cluster.presence import node_key
from server.lobby.seeking import SeekEntry
from server.log.redis.keys import PREFIX

SEEKS = PREFIX + "seeks"
PAIRER = PREFIX + "seeks:pairer"
#: how long the pairer's lease lasts without renewal (it renews every round, twice a second)
LEASE_MS = 3000

_PUT = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 or redis.call('HLEN', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return 1
end
return 0
"""
_TAKE = """
for i = 1, #ARGV do
  if redis.call('HEXISTS', KEYS[1], ARGV[i]) == 0 then return 0 end
end
redis.call('HDEL', KEYS[1], unpack(ARGV))
return 1
"""
_LEAD = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""


class RedisQueue:
    """The cluster's queue (``server.lobby.seeking.SeekQueue``), seen from one node."""

    def __init__(self, cluster: ClusterDirectory) -> None:
        self.cluster = cluster
        redis = cluster.redis
        self._put = redis.register_script(_PUT)
        self._take = redis.register_script(_TAKE)
        self._lead = redis.register_script(_LEAD)

    async def put(self, entry: SeekEntry, limit: int) -> bool:
        key = entry.seeker.name.casefold()
        return bool(await self._put(keys=[SEEKS], args=[key, entry.dump(), limit]))

    async def drop(self, name: str) -> bool:
        return bool(await self.cluster.redis.hdel(SEEKS, name.casefold()))

    async def entries(self) -> list[SeekEntry]:
        redis = self.cluster.redis
        found = [SeekEntry.load(text) for text in (await redis.hgetall(SEEKS)).values()]
        alive: dict[str, bool] = {}
        for entry in found:
            if entry.node not in alive:
                alive[entry.node] = bool(await redis.exists(node_key(entry.node)))
        dead = [e.seeker.name.casefold() for e in found if not alive[e.node]]
        if dead:
            await redis.hdel(SEEKS, *dead)
        return [e for e in found if alive[e.node]]

    async def take(self, names: Sequence[str]) -> bool:
        return bool(await self._take(keys=[SEEKS], args=[name.casefold() for name in names]))

    async def lead(self) -> bool:
        return bool(await self._lead(keys=[PAIRER], args=[self.cluster.node, LEASE_MS]))


__all__ = ["PAIRER", "SEEKS", "RedisQueue"]
