"""The tournaments' lease: in a cluster one node directs every tournament, the one holding the key
``cafe:lease:tournaments`` (``node:epoch``, as a room's lease), renewed at each of its ticks.
When that node dies its lease runs out and another node's next tick takes it; the tournaments'
state is all in Redis, so it goes on where it was."""

from __future__ import annotations

import contextlib
import secrets

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from server.cluster.leases import RELEASE
from server.log.redis.keys import PREFIX

KEY = PREFIX + "lease:tournaments"

# KEYS: the lease  ARGV: this node's token, milliseconds
_HOLD = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if holder then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""


class TournamentLease:
    """This node's claim to direct the tournaments (``server.tournament.director.Lease``)."""

    def __init__(self, client: aioredis.Redis, node: str, lease_ms: int) -> None:
        self.redis = client
        self.token = f"{node}:{secrets.token_hex(4)}"
        self.lease_ms = lease_ms
        self._hold = client.register_script(_HOLD)
        self._release = client.register_script(RELEASE)

    async def holds(self) -> bool:
        """Take or renew the lease; whether this node holds it now (not while Redis is away)."""
        try:
            return int(await self._hold(keys=[KEY], args=[self.token, self.lease_ms])) == 1
        except RedisError:
            return False

    async def release(self) -> None:
        """Let another node take it at once (a graceful stop)."""
        with contextlib.suppress(RedisError):
            await self._release(keys=[KEY], args=[self.token])


__all__ = ["TournamentLease"]
