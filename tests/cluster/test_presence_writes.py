"""A node's list of people in Redis, written two ways: one person's line when it changes (a seek,
a departure), and the whole list anew at a heartbeat (every ``WHOLE_EVERY``, or sooner when
Redis may have lost some of it). A line written while a heartbeat is on its way to Redis is not
undone by that heartbeat, which read the people before."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, cast

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from server.cluster.presence import WHOLE_EVERY, Presence, entry, held_key, name_key, node_key, online_key
from server.cluster.timings import ClusterTimings
from server.directory.names import Held, Names
from server.directory.rooms import LocalRooms
from server.log.redis.store import RedisStore
from server.session import Session
from tests.cluster.conftest import TIMINGS


class NoRooms:
    """The node's rooms, of which there are none here: no seat holds a name."""

    def seated(self, connected: Callable[[str], bool]) -> list[str]:
        return []

    def name_held(self, name: str, own: str | None) -> Held | None:
        return None


def _session(name: str) -> Session:
    session = Session(peer="127.0.0.1")
    session.name = session.identity = name
    return session


async def test_a_line_written_while_a_heartbeat_is_on_its_way_stays_written(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A heartbeat reads ann (not seeking) and bob, and is held on its way to Redis; meanwhile ann
    seeks and bob goes, and their lines are written. Once both are in Redis, ann's line says she
    seeks, and bob is neither listed nor holds his name: the heartbeat wrote what it read before
    those lines, or waited for them to be written, never the people it read over them."""
    redis = aioredis.from_url(redis_url, decode_responses=True)
    names = Names()
    ann, bob = _session("ann"), _session("bob")
    names.bind(ann)
    names.bind(bob)
    presence = Presence(redis, "a", TIMINGS, cast(RedisStore, None), names, cast(LocalRooms, NoRooms()))
    on_its_way, go_on, beaten = asyncio.Event(), asyncio.Event(), asyncio.Event()
    make = redis.pipeline

    def pipeline(transaction: bool = True) -> Any:
        """The heartbeat's first pipeline waits for ``go_on`` before it goes to Redis."""
        pipe = make(transaction=transaction)
        if not on_its_way.is_set():
            execute = pipe.execute

            async def held(raise_on_error: bool = True) -> list[Any]:
                on_its_way.set()
                await go_on.wait()
                try:
                    return await execute(raise_on_error)
                finally:
                    beaten.set()

            pipe.execute = held  # type: ignore[method-assign]
        return pipe

    monkeypatch.setattr(redis, "pipeline", pipeline)
    beating = asyncio.get_running_loop().create_task(presence.heartbeat())
    try:
        await asyncio.wait_for(on_its_way.wait(), 10)
        ann.seeking = True
        names.unbind(bob, "bob")
        writes = asyncio.gather(presence.write_online("ann", entry(ann)), presence.write_online("bob", None))
        # the writes are given the time to reach Redis before the heartbeat goes on (should they
        # not wait for it), then the heartbeat goes on
        await asyncio.wait({writes}, timeout=1)
        go_on.set()
        await asyncio.wait_for(writes, 10)
        await asyncio.wait_for(beaten.wait(), 10)
        listed = await redis.hgetall(online_key("a"))
        assert sorted(listed) == ["ann"]
        assert json.loads(listed["ann"])["seeking"] is True
        assert await redis.get(name_key("ann")) == "a"
        assert await redis.get(name_key("bob")) is None
    finally:
        beating.cancel()
        await asyncio.gather(beating, return_exceptions=True)
        await redis.aclose()


#: a heartbeat every 0.3 s (one 0.6 s after the last is late): the whole lists are written every
#: 3 s when nothing asks sooner
QUICK = ClusterTimings.for_lease(0.9)


@contextlib.asynccontextmanager
async def _beating(redis_url: str, *people: str) -> AsyncIterator[tuple[aioredis.Redis, Presence, Names]]:
    """A node ``a`` with ``people`` connected, its heartbeat running, once its first is in Redis."""
    redis = aioredis.from_url(redis_url, decode_responses=True)
    names = Names()
    for name in people:
        names.bind(_session(name))
    presence = Presence(redis, "a", QUICK, cast(RedisStore, None), names, cast(LocalRooms, NoRooms()))
    beating = asyncio.get_running_loop().create_task(presence.heartbeat())
    try:
        await _until(lambda: redis.hlen(online_key("a")), len(people))
        yield redis, presence, names
    finally:
        beating.cancel()
        await asyncio.gather(beating, return_exceptions=True)
        await redis.aclose()


async def _until(read: Callable[[], Awaitable[Any]], wanted: Any, within: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + within
    while (found := await read()) != wanted:
        assert asyncio.get_running_loop().time() < deadline, f"{found!r}, not {wanted!r}"
        await asyncio.sleep(0.02)


async def test_between_whole_writings_a_heartbeat_leaves_the_lines_as_they_are(redis_url: str) -> None:
    """A line Redis holds in an older version (a change Redis lost) is not written again by the
    heartbeats that only say the node lives, and is by the next writing of the whole lists, within
    ``WHOLE_EVERY`` heartbeats; the node's key and lists live on meanwhile."""
    async with _beating(redis_url, "ann", "bob") as (redis, _, names):
        old = {**entry(names.sessions["bob"]), "seeking": True}
        await redis.hset(online_key("a"), "bob", json.dumps(old))
        await asyncio.sleep(2 * QUICK.renew_every)
        assert json.loads(await redis.hget(online_key("a"), "bob")) == old
        assert await redis.pttl(online_key("a")) > 0 and await redis.get(node_key("a")) == "1"

        async def seeking() -> bool:
            return bool(json.loads(await redis.hget(online_key("a"), "bob"))["seeking"])

        await _until(seeking, False, (WHOLE_EVERY + 2) * QUICK.renew_every)


async def test_a_line_redis_lost_is_written_at_the_next_heartbeat(redis_url: str) -> None:
    """A line gone from Redis behind the node's back: the next heartbeat finds that the list does
    not count the node's people, and writes the whole lists at once."""
    async with _beating(redis_url, "ann", "bob") as (redis, _, _):
        await redis.hdel(online_key("a"), "bob")
        await _until(lambda: redis.hexists(online_key("a"), "bob"), True, 3 * QUICK.renew_every)


async def test_a_node_whose_key_redis_lost_writes_its_lists_whole_at_once(redis_url: str) -> None:
    """Redis loses everything (a restart without its data): at the next heartbeats the node finds
    its key gone and writes its people, their names' forms and their names' keys anew, well
    before ``WHOLE_EVERY`` heartbeats."""
    async with _beating(redis_url, "ann", "bob") as (redis, _, _):
        await asyncio.sleep(QUICK.renew_every)
        await redis.flushall()
        within = 3 * QUICK.renew_every  # (a whole writing is WHOLE_EVERY = 10 heartbeats apart)

        async def listed() -> list[str]:
            return sorted(await redis.hkeys(online_key("a")))

        await _until(listed, ["ann", "bob"], within)
        assert sorted(await redis.hvals(held_key("a"))) == ["ann", "bob"]
        assert [await redis.get(name_key(name)) for name in ("ann", "bob")] == ["a", "a"]


async def test_a_line_that_could_not_be_written_is_in_the_next_heartbeats_lists(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ann starts seeking while Redis refuses her line: the next heartbeat writes the whole lists,
    her line as it is now among them, without waiting for ``WHOLE_EVERY`` heartbeats."""
    async with _beating(redis_url, "ann") as (redis, presence, names):
        ann = names.sessions["ann"]
        make = redis.pipeline

        def refusing(transaction: bool = True) -> Any:
            pipe = make(transaction=transaction)

            async def refused(raise_on_error: bool = True) -> list[Any]:
                raise RedisConnectionError("Redis is away")

            pipe.execute = refused  # type: ignore[method-assign]
            return pipe

        monkeypatch.setattr(redis, "pipeline", refusing)
        ann.seeking = True
        with pytest.raises(RedisConnectionError):
            await presence.write_online("ann", entry(ann))
        monkeypatch.setattr(redis, "pipeline", make)

        async def seeking() -> bool:
            return bool(json.loads(await redis.hget(online_key("a"), "ann"))["seeking"])

        await _until(seeking, True, 3 * QUICK.renew_every)
