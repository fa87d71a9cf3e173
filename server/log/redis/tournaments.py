"""Tournaments in Redis, for cluster mode (a :class:`server.log.contract.TournamentTable`).

``cafe:tournament:ID`` is a hash (``version``, ``state`` as JSON); ``cafe:tournaments:seq`` gives
the ids; ``cafe:tournaments:live`` and ``cafe:tournaments:over`` are sorted sets of ids by id;
``cafe:tournaments:names`` maps a live tournament's casefolded name to its id, and
``cafe:tournaments:named`` every name to its latest id. Each write is one Lua script, so a write
over a version that changed since it was read writes nothing. Nothing expires: tournaments are
records.
"""

from __future__ import annotations

import json
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from server.log.contract import StoredTournament, StoreUnavailable
from server.log.redis.keys import PREFIX

SEQ = PREFIX + "tournaments:seq"
LIVE = PREFIX + "tournaments:live"
OVER = PREFIX + "tournaments:over"
NAMES = PREFIX + "tournaments:names"
NAMED = PREFIX + "tournaments:named"


def tournament_key(tournament_id: int) -> str:
    return f"{PREFIX}tournament:{tournament_id}"


# KEYS: tournament, live, names, named  ARGV: casefolded name, state (JSON), id
_CREATED = """
if redis.call('HEXISTS', KEYS[3], ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', 1, 'state', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[3])
return 1
"""
# KEYS: tournament, live, over, names  ARGV: version, state (JSON), id, over (1/0), casefolded name
_SAVED = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'version', tonumber(ARGV[1]) + 1, 'state', ARGV[2])
if ARGV[4] == '1' then
    redis.call('ZREM', KEYS[2], ARGV[3])
    redis.call('ZADD', KEYS[3], ARGV[3], ARGV[3])
    if redis.call('HGET', KEYS[4], ARGV[5]) == ARGV[3] then redis.call('HDEL', KEYS[4], ARGV[5]) end
end
return 1
"""


class RedisTournaments:
    """Tournaments in Redis; Redis out of reach is ``StoreUnavailable``."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.redis = client
        self._created = client.register_script(_CREATED)
        self._saved = client.register_script(_SAVED)

    async def tournament_created(self, state: dict[str, Any]) -> int | None:
        name = state["name"].casefold()
        try:
            if await self.redis.hexists(NAMES, name):
                return None
            number = int(await self.redis.incr(SEQ))  # (an id a lost race used is not used again)
            done = await self._created(
                keys=[tournament_key(number), LIVE, NAMES, NAMED],
                args=[name, json.dumps({**state, "id": number}), number],
            )
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
        return number if int(done) == 1 else None

    async def tournament(self, tournament_id: int) -> StoredTournament | None:
        try:
            version, state = await self.redis.hmget(tournament_key(tournament_id), ["version", "state"])
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
        return None if state is None or version is None else StoredTournament(int(version), json.loads(state))

    async def tournament_named(self, name: str) -> StoredTournament | None:
        try:
            found = await self.redis.hget(NAMED, name.casefold())
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
        return None if found is None else await self.tournament(int(found))

    async def tournament_saved(self, version: int, state: dict[str, Any]) -> bool:
        over = state["status"] not in ("upcoming", "running")
        try:
            done = await self._saved(
                keys=[tournament_key(int(state["id"])), LIVE, OVER, NAMES],
                args=[version, json.dumps(state), state["id"], int(over), state["name"].casefold()],
            )
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
        return int(done) == 1

    async def _many(self, ids: list[Any]) -> list[StoredTournament]:
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for found in ids:
                    pipe.hmget(tournament_key(int(found)), ["version", "state"])
                rows = await pipe.execute()
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
        return [StoredTournament(int(v), json.loads(s)) for v, s in rows if s is not None]

    async def tournaments_live(self) -> list[StoredTournament]:
        try:
            ids = await self.redis.zrange(LIVE, 0, -1)
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
        return await self._many(ids)

    async def tournaments_recent(self, limit: int) -> list[StoredTournament]:
        try:
            ids = await self.redis.zrevrange(OVER, 0, limit - 1)
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
        return await self._many(ids)
