"""A player voted out stays out for the rest of the game in a cluster: Redis keeps the vote, so
the node that takes the room over after its owner died seats them no more."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from engine import GameRecord
from server.log.redis.store import RedisStore, lease_key
from tests.cluster.conftest import two_nodes
from tests.server.clients import WsClient
from tests.server.process import ServerProcess
from tests.server.test_seat_holding import Connect
from tests.server.test_vote_out_kept import ARGS, dan_only_watches, vote_out_dan


async def test_a_vote_out_and_a_seat_taken_over_are_kept_in_redis(redis_url: str) -> None:
    """After ``voted_out`` (twice: kept once) and ``seat_taken``, another node reading the running
    game finds both the player voted out and the one whose seat was taken over."""
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        await client.set(lease_key("r"), "n:1")
        store = RedisStore(client, lambda room: "n:1")
        record = GameRecord(("ann", "bob", "cid"), 1)
        await store.game_started("g1", "r", record, ["person"] * 3, {}, ["id-ann", "id-bob", "id-cid"])
        await store.voted_out("g1", "cid")
        await store.voted_out("g1", "cid")
        await store.seat_taken("g1", 1, "bob", "zoe", "id-zoe")
        await client.set(lease_key("r"), "m:2")  # another node takes the room over
        stored = await RedisStore(client, lambda room: "m:2").running_game("r")
        assert stored is not None and stored.voted_out == ("cid", "bob")
        assert stored.record.players == ("ann", "zoe", "cid")
    finally:
        await client.aclose()


def _across(a: ServerProcess, b: ServerProcess) -> Connect:
    """Connects dan to node b, everyone else to node a (where ann opens the room)."""

    async def connect(name: str, **hello: Any) -> WsClient:
        return await WsClient.connect((b if name == "dan" else a).port, name, **hello)

    return connect


async def _owns_restored(node: ServerProcess, timeout: float = 20) -> None:
    """Wait until ``node`` has taken up a running game from the log."""
    for _ in range(int(timeout / 0.05)):
        if any(e.get("event") == "room_owned" and e.get("restored") for e in node.lines):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the node did not take the room over")


async def test_the_node_taking_over_the_room_keeps_a_player_voted_out(redis_url: str, tmp_path: Path) -> None:
    """The room lives on node a; dan, on node b, is voted out. Node a is killed and node b takes
    the room over from the log in Redis: dan, back on node b with his token, only watches (no
    seat, no hand) and ``/join 4`` answers ``voted_out``."""
    async with two_nodes(redis_url, tmp_path, *ARGS) as (a, b):
        token = await vote_out_dan(_across(a, b))
        a.proc.send_signal(signal.SIGKILL)
        await asyncio.wait_for(a.proc.wait(), 10)
        await _owns_restored(b)

        async def on_b(name: str, **hello: Any) -> WsClient:
            return await WsClient.connect(b.port, name, **hello)

        await dan_only_watches(on_b, token)
