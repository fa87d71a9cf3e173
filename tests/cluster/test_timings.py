"""``--lease`` and the timings that follow it: the lease a node takes in Redis, its heartbeat's key
and its people's names last as long as the setting says."""

from __future__ import annotations

import redis.asyncio as aioredis

from server.cluster.presence import name_key
from server.cluster.timings import ClusterTimings
from server.config import load_config
from server.log.redis.keys import PREFIX, lease_key
from tests.cluster.conftest import LEASE, TIMINGS
from tests.server.clients import WsClient
from tests.server.process import ServerProcess


def test_the_lease_is_a_setting_of_three_seconds_by_default() -> None:
    """``--lease`` and ``CAFE_LEASE`` set the lease; without either it is 3 s, and its timings are
    the defaults."""
    assert load_config([], {}).lease == 3.0
    assert ClusterTimings.for_lease(load_config([], {}).lease) == ClusterTimings()
    redis = {"CAFE_REDIS": "redis://127.0.0.1:6379/0"}  # (only a cluster takes a lease)
    assert load_config(["--lease", "1.5"], redis).lease == 1.5
    assert load_config([], {"CAFE_LEASE": "0.75", **redis}).lease == 0.75


def test_each_timing_keeps_its_proportion_to_the_lease() -> None:
    """Whatever the lease: a heartbeat every third of it, a node's expiry at 5/3 of it, readiness
    within it, and a name's claim for ten times it."""
    for lease in (0.3, 1.5, 3.0, 10.0):
        t = ClusterTimings.for_lease(lease)
        assert t.lease == lease
        ratios = (t.renew_every / lease, t.node_ttl / lease, t.ready_within / lease, t.name_ttl / lease)
        assert [round(r, 9) for r in ratios] == [round(1 / 3, 9), round(5 / 3, 9), 1.0, 10.0]


async def test_a_node_claims_for_as_long_as_its_lease_says(
    nodes: list[ServerProcess], redis_url: str
) -> None:
    """A node of the tests (``CAFE_LEASE`` = ``LEASE``) holds a room's lease, its heartbeat's key
    and a connected person's name in Redis for the times that lease gives, never the defaults'."""
    assert ClusterTimings().lease > LEASE
    ann = await WsClient.connect(nodes[0].port, "ann")
    assert (await ann.command("/join timed"))["type"] == "ack"
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        assert 0 < await client.pttl(lease_key("timed")) <= TIMINGS.lease_ms
        assert 0 < await client.pttl(f"{PREFIX}node:a") <= TIMINGS.node_ttl_ms
        assert TIMINGS.lease_ms < await client.pttl(name_key("ann")) <= TIMINGS.name_ttl_ms
    finally:
        await client.aclose()
