"""Each person's lists in Redis, for cluster mode: one hash per identity and list,
``cafe:list:IDENTITY:mute`` (a name's look-alike form -> the name in lower case) and
``cafe:list:IDENTITY:friend`` (casefolded name -> name).

A registered account's hashes stay until the account is deleted. A guest's expire as Redis' copy
of the guest's resume token does (:data:`GUEST_TTL` after its last login or change): the guest's
name holds no longer than that.
"""

from __future__ import annotations

from collections.abc import Mapping

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from server.log.contract import LISTS, StoreUnavailable, list_of, stored_lists
from server.log.redis.keys import PREFIX
from server.ratings import ACCOUNT

#: seconds a guest's lists are kept after its last login or change: as long as Redis keeps the
#: guest's resume token (``server.log.redis.store.TOKEN_TTL``)
GUEST_TTL = 7 * 24 * 3600


def list_key(identity: str, which: str) -> str:
    """The hash of ``identity``'s list ``which`` (``mute`` or ``friend``)."""
    return f"{PREFIX}list:{identity}:{which}"


def list_keys(identity: str) -> list[str]:
    """Every list hash of ``identity``."""
    return [list_key(identity, which) for which in LISTS]


class RedisLists:
    """The lists' part of ``RedisStore``. Redis out of reach is ``StoreUnavailable``."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.redis = client

    async def lists(self, identity: str) -> dict[str, dict[str, str]]:
        guest = not identity.startswith(ACCOUNT)
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for key in list_keys(identity):
                    pipe.hgetall(key)
                    if guest:  # a guest who comes back keeps them as long as the new token
                        pipe.expire(key, GUEST_TTL)
                replies = await pipe.execute()
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
        found = stored_lists()
        hashes = replies[:: 2 if guest else 1]
        for which, fields in zip(LISTS, hashes, strict=True):
            found[which] = {str(k): str(v) for k, v in fields.items()}
        return found

    async def list_changed(self, identity: str, action: str, key: str, name: str) -> None:
        which, adds = list_of(action)
        hash_key = list_key(identity, which)
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                if adds:
                    pipe.hset(hash_key, key, name)
                else:
                    pipe.hdel(hash_key, key)
                if not identity.startswith(ACCOUNT):
                    pipe.expire(hash_key, GUEST_TTL)
                await pipe.execute()
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e

    async def lists_replaced(self, identity: str, lists: Mapping[str, Mapping[str, str]]) -> None:
        try:
            async with self.redis.pipeline(transaction=True) as pipe:  # all or nothing
                pipe.delete(*list_keys(identity))
                for which in LISTS:
                    entries = lists.get(which, {})
                    if entries:
                        pipe.hset(list_key(identity, which), mapping={k: v for k, v in entries.items()})
                        if not identity.startswith(ACCOUNT):
                            pipe.expire(list_key(identity, which), GUEST_TTL)
                await pipe.execute()
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e

    async def lists_deleted(self, identity: str) -> None:
        try:
            await self.redis.delete(*list_keys(identity))
        except RedisError as e:
            raise StoreUnavailable(str(e)) from e
