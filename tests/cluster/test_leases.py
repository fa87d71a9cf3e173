"""A node's room leases in Redis, renewed all at once: each lease it still holds is prolonged,
and a lease another node holds now (or nobody) is reported lost and left as it is."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from server.cluster import leases
from server.cluster.leases import Leases
from server.cluster.timings import ClusterTimings
from server.log.redis.keys import lease_key


async def test_one_renewal_prolongs_the_held_leases_and_names_the_lost_ones(redis_url: str) -> None:
    """Of three leases, one taken over by another node and one run out: both are reported lost,
    the newer owner's token and time stay, and the one still held is prolonged to a full lease."""
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        timings = ClusterTimings.for_lease(3.0)
        mine = Leases(client, "a", timings)
        for room in ("r1", "r2", "r3"):
            assert await mine.take(room)
        await client.set(lease_key("r2"), "b:9", px=60_000)  # another node has it now
        await client.delete(lease_key("r3"))  # ran out
        await client.pexpire(lease_key("r1"), 500)
        assert sorted(await mine.renew()) == ["r2", "r3"]
        assert await client.pttl(lease_key("r1")) > 2_500
        assert await client.get(lease_key("r2")) == "b:9" and await client.pttl(lease_key("r2")) > 50_000
        assert await client.exists(lease_key("r3")) == 0
        assert await mine.holders(["r1", "r2", "r3", "r1"]) == {
            "r1": mine.fences["r1"],
            "r2": "b:9",
            "r3": None,
        }
    finally:
        await client.aclose()


async def test_more_leases_than_one_call_renews_are_renewed_in_several(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Leases past what one script call takes go in further calls of the same round trip: every
    one is renewed, and a lost one among the later ones is named."""
    monkeypatch.setattr(leases, "RENEW_AT_ONCE", 2)
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        mine = Leases(client, "a", ClusterTimings.for_lease(3.0))
        rooms = [f"r{n}" for n in range(5)]
        for room in rooms:
            assert await mine.take(room)
            await client.pexpire(lease_key(room), 500)
        await client.set(lease_key("r4"), "b:1")
        assert await mine.renew() == ["r4"]
        for room in rooms[:4]:
            assert await client.pttl(lease_key(room)) > 2_500
    finally:
        await client.aclose()


async def test_a_rooms_epoch_is_kept_a_day_from_its_last_take(redis_url: str) -> None:
    """A room's count of leases goes on from take to take (each token new), and is let go a day
    after the last: a quick pairing's every table is a room of a new name, which Redis kept for
    ever (72 bytes a game, found by an audit)."""
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        mine = Leases(client, "a", ClusterTimings.for_lease(3.0))
        assert await mine.take("seek-1")
        first = mine.fences["seek-1"]
        await mine.release("seek-1", first)
        assert await mine.take("seek-1")
        assert (first, mine.fences["seek-1"]) == ("a:1", "a:2")
        ttl = await client.ttl("cafe:epoch:seek-1")
        assert leases.EPOCH_KEPT - 5 <= ttl <= leases.EPOCH_KEPT
    finally:
        await client.aclose()
