"""A seat taken over by a ``/join N`` vote, in Redis: the game's players and the seat index name
the new player, and the node that takes the room over after its owner died seats them."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis

from engine import GameRecord
from server.log.contract import LeaseLost
from server.log.redis.keys import lease_key
from server.log.redis.store import RedisStore
from tests.cluster.conftest import two_nodes
from tests.server.clients import WsClient
from tests.server.process import ServerProcess
from tests.server.test_seat_takeover import ARGS, take_over_seat_2


async def test_a_seat_taken_over_is_the_new_players_in_redis(redis_url: str) -> None:
    """After ``seat_taken`` the logged game seats zoe, the seat index leads zoe (not bob) to the
    room, the game is in zoe's history, and another node reading the running game seats her."""
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        await client.set(lease_key("r"), "n:1")
        store = RedisStore(client, lambda room: "n:1")
        record = GameRecord(("ann", "bob"), 1)
        await store.game_started("g1", "r", record, ["person", "person"], {}, ["id-ann", "id-bob"])
        await store.seat_taken("g1", 1, "bob", "zoe", "id-zoe")
        assert [await store.seat_room(n) for n in ("ann", "bob", "zoe")] == ["r", None, "r"]
        assert [g.game_id for g in await store.history("id-zoe")] == ["g1"]
        await client.set(lease_key("r"), "m:2")  # another node takes the room over
        other = RedisStore(client, lambda room: "m:2")
        stored = await other.running_game("r")
        assert stored is not None and stored.record.players == ("ann", "zoe")
        with pytest.raises(LeaseLost):  # and the node that lost the lease writes no seat any more
            await store.seat_taken("g1", 0, "ann", "eve", None)
        assert await store.seat_room("eve") is None
    finally:
        await client.aclose()


@pytest.fixture
async def pair(redis_url: str, tmp_path: Path) -> AsyncIterator[list[ServerProcess]]:
    """Two nodes on the test's Redis, with a short resume window and no bot worker processes."""
    async with two_nodes(redis_url, tmp_path, *ARGS) as started:
        yield started


async def test_the_node_taking_over_the_room_seats_the_player_voted_in(pair: list[ServerProcess]) -> None:
    """zoe, on node b, takes over bob's seat in a room node a owns; node a is killed; node b takes
    the room over from the log in Redis and zoe is in the seat, with her hand."""
    a, b = pair
    ann = await WsClient.connect(a.port, "ann")  # node a owns the room: ann enters it first
    bob = await WsClient.connect(b.port, "bob")
    zoe = await WsClient.connect(b.port, "zoe")
    await take_over_seat_2(ann, bob, zoe)
    assert zoe.view is not None
    hand = zoe.view["game"]["hand"]
    a.proc.send_signal(signal.SIGKILL)
    await asyncio.wait_for(a.proc.wait(), 10)
    view = (await zoe.next("snapshot", timeout=20))["view"]
    assert (view["seat"], view["seats"][1]["name"], view["game"]["hand"]) == (1, "zoe", hand)


async def test_the_owner_knows_a_member_on_another_node_as_it_is_now(pair: list[ServerProcess]) -> None:
    """bob, on node b, watches a room node a owns, registers, then takes a seat: the owner seats
    him as the account he is now, not as the guest who entered."""
    a, b = pair
    ann = await WsClient.connect(a.port, "ann")
    assert (await ann.command("/join den"))["type"] == "ack"
    bob = await WsClient.connect(b.port, "bob")
    assert (await bob.command("/room den"))["type"] == "ack"
    assert (await bob.request({"type": "register", "password": "correct horse battery"}))["registered"]
    assert (await bob.command("/join den"))["type"] == "ack"
    seats: list[dict[str, object]] = []
    for _ in range(100):  # the owner lists the room in Redis in the background
        seats = (await ann.request({"type": "list_rooms"}))["rooms"][0]["seats"]
        if len(seats) == 2:
            break
        await asyncio.sleep(0.05)
    assert [(s["name"], s["guest"]) for s in seats] == [("ann", True), ("bob", False)]
