"""The Redis log lets no token linger past its time to live, and says it is unavailable, changing
nothing, when Redis is away. (The promises every game log makes about tokens are held for Redis and
SQLite alike in ``tests/server/test_log_contract.py``.)"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
import redis.asyncio as aioredis

from server.log.contract import StoreUnavailable
from server.log.redis.store import TOKEN_TTL, RedisStore
from tests.cluster.conftest import RedisServer


async def test_no_token_outlives_its_time_to_live(client: aioredis.Redis) -> None:
    """A token and the name's pointer to it are dropped by Redis within the time to live."""
    store = RedisStore(client, lambda room: "n:1")
    await store.token_issued("a1", "Ann", "id-ann")
    await store.token_released("a1", 5.0)
    keys = sorted(await client.keys("cafe:token*"))
    assert keys == ["cafe:token-of:ann", "cafe:token:a1"]
    for key in keys:
        assert 0 < await client.ttl(key) <= TOKEN_TTL


async def test_a_release_of_a_token_revoked_meanwhile_leaves_no_key(client: aioredis.Redis) -> None:
    """A connection's end writes its token's end only while the token stands (in one step, so that
    a token another node's issue revokes meanwhile is not written again as an end alone: a key
    without a time to live, which a resume with it would read as a token without a name); such a
    key, left by an older version, reads as no token. (The step's atomicity is Redis' own: this
    test, one command after another, sees its outcome only.)"""
    store = RedisStore(client, lambda room: "n:1")
    await store.token_issued("a1", "ann", "id-ann")
    assert await store.token_issued("a2", "ann", "id-ann", replacing="a1")
    await store.token_released("a1", 5.0)
    assert not await client.exists("cafe:token:a1")
    await client.hset("cafe:token:a0", "expires", "5.0")
    assert await store.token("a0") is None


async def test_tokens_are_unavailable_while_redis_is_away(
    client: aioredis.Redis, redis_server: RedisServer
) -> None:
    """With Redis gone every token call says ``StoreUnavailable`` with Redis' own reason (which the
    server logs); back, the token is as it was."""
    store = RedisStore(client, lambda room: "n:1")
    await store.token_issued("a1", "ann", "id-ann")
    redis_server.stop()
    calls: list[Callable[[], Awaitable[object]]] = [
        lambda: store.token_issued("a2", "ann", "id-ann"),
        lambda: store.token("a1"),
        lambda: store.token_released("a1", 5.0),
        lambda: store.token_revoked("a1"),
    ]
    for call in calls:
        with pytest.raises(StoreUnavailable) as raised:
            await call()
        assert str(raised.value.__cause__) in str(raised.value) and str(raised.value) != str(None)
    redis_server.start()
    await redis_server.wait_ready()
    assert (await store.token("a1")) is not None and await store.token("a2") is None
