"""A node's list of people in Redis, written two ways: one person's line when it changes (a seek,
a departure), and the whole list anew at each heartbeat. A line written while a heartbeat is on
its way to Redis is not undone by that heartbeat, which read the people before."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any, cast

import pytest
import redis.asyncio as aioredis

from server.cluster.presence import Presence, entry, name_key, online_key
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
