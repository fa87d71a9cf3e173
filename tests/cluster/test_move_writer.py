"""Moves are written to Redis together: those of many rooms that come while a write is on its way,
or within a window after the last round trip left, go in one round trip with what the relay
publishes, each still fenced by its room's lease and answered on its own, in order for each room;
Redis having lost its scripts (a restart) or being away is answered as before."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from engine import GameRecord
from server.cluster.node import ClusterDirectory
from server.cluster.relay import Relay, channel
from server.config import load_config
from server.log.contract import LeaseLost, StoreUnavailable
from server.log.redis.batch import Batched, batched
from server.log.redis.keys import lease_key
from server.log.redis.scripts import MOVE_PLAYED
from server.log.redis.store import RedisStore
from server.metrics import Metrics
from tests.cluster.conftest import RedisServer, published

ROOMS = [f"r{n}" for n in range(6)]


async def _store(client: aioredis.Redis) -> RedisStore:
    """A store owning every room of ``ROOMS``, each with a game ``g-ROOM`` running."""
    fences = {room: f"n:{n}" for n, room in enumerate(ROOMS)}
    store = RedisStore(client, fences.get)
    for room, token in fences.items():
        await client.set(lease_key(room), token)
        store.adopt(f"g-{room}", room, GameRecord(("ann", "bob"), 1), ["person", "person"])
    return store


async def test_moves_of_many_rooms_go_in_one_round_trip_each_fenced(client: aioredis.Redis) -> None:
    """Six rooms move at once: one pipeline carries the six; the room whose lease another node
    took fails alone (``LeaseLost``), a move out of turn in the log fails alone, and each room's
    moves are in the log in the order it made them."""
    store = await _store(client)
    await client.script_load(MOVE_PLAYED)  # (else each move finds it missing, and sends it again)
    batch = batched(client)
    trips, sent = batch.trips, batch.sent
    await client.set(lease_key("r1"), "other:9")
    first = await asyncio.gather(
        *(store.move_played(f"g-{room}", 1, f"m1-{room}") for room in ROOMS), return_exceptions=True
    )
    assert (batch.trips - trips, batch.sent - sent) == (1, 6)
    assert [type(r).__name__ for r in first] == ["NoneType", "LeaseLost", *["NoneType"] * 4]
    second = await asyncio.gather(
        store.move_played("g-r0", 2, "m2-r0"),
        store.move_played("g-r2", 3, "skips one"),  # (the log holds one move: -2, not the room's)
        store.move_played("g-r3", 2, "m2-r3", "clock"),
        return_exceptions=True,
    )
    assert isinstance(second[1], LeaseLost) and second[0] is None and second[2] is None
    assert await client.lrange("cafe:game:g-r0:moves", 0, -1) == ["m1-r0", "m2-r0"]
    assert await client.lrange("cafe:game:g-r1:moves", 0, -1) == []
    assert await client.lrange("cafe:game:g-r2:moves", 0, -1) == ["m1-r2"]
    assert await client.hget("cafe:game:g-r3", "auto:2") == "clock"


async def test_moves_are_written_after_redis_lost_its_scripts(client: aioredis.Redis) -> None:
    """A Redis that forgot the move script (restarted without it) is given it again: the moves
    that found it missing are written all the same."""
    store = await _store(client)
    await store.move_played("g-r0", 1, "a")
    await client.script_flush()
    await asyncio.gather(store.move_played("g-r0", 2, "b"), store.move_played("g-r1", 1, "c"))
    assert await client.lrange("cafe:game:g-r0:moves", 0, -1) == ["a", "b"]
    assert await client.lrange("cafe:game:g-r1:moves", 0, -1) == ["c"]


async def test_moves_while_redis_is_away_are_each_unavailable(
    client: aioredis.Redis, redis_server: RedisServer
) -> None:
    """Redis gone: every move waiting is answered ``StoreUnavailable``; back, moves go again."""
    store = await _store(client)
    redis_server.stop()
    answers = await asyncio.gather(
        *(store.move_played(f"g-{room}", 1, "x") for room in ROOMS[:3]), return_exceptions=True
    )
    assert all(isinstance(a, StoreUnavailable) for a in answers), answers
    redis_server.start()
    await redis_server.wait_ready()
    await client.set(lease_key("r0"), "n:0")
    await store.move_played("g-r0", 1, "y")
    assert await client.lrange("cafe:game:g-r0:moves", 0, -1) == ["y"]


async def test_with_replica_durability_no_move_is_acknowledged_without_a_replica(
    client: aioredis.Redis,
) -> None:
    """``replica`` durability and no replica: a move is not acknowledged (``LeaseLost``, the room is
    taken up again from the log), also when Redis had to be given the move script again first."""
    fences = {"r0": "n:0"}
    store = RedisStore(client, fences.get, "replica")
    await client.set(lease_key("r0"), "n:0")
    store.adopt("g-r0", "r0", GameRecord(("ann", "bob"), 1), ["person", "person"])
    await client.script_flush()
    with pytest.raises(LeaseLost, match="no replica"):
        await store.move_played("g-r0", 1, "a")
    with pytest.raises(LeaseLost, match="no replica"):
        await store.move_played("g-r0", 2, "b")


async def test_the_relay_and_the_moves_of_one_client_share_its_round_trips(client: aioredis.Redis) -> None:
    """What the relay publishes and the moves the log writes through one Redis client go through
    the same batches (another client has its own)."""
    store = await _store(client)
    relay = Relay(client, "a", {})
    assert relay._batch is store._moves.batch is batched(client)
    other = aioredis.from_url("redis://127.0.0.1:1/0")  # (never connected)
    assert batched(other) is not batched(client)
    await other.aclose()


async def test_what_needs_no_replica_does_not_wait_for_one(client: aioredis.Redis) -> None:
    """A command that asks for a replica's copy waits for ``WAIT`` (here, with no replica, its whole
    second); a publish sent beside it goes in a batch of its own and is answered first."""
    batch = batched(client)
    replicated = asyncio.ensure_future(batch.call_replicated(1000, "SET", "k", "v"))
    published = asyncio.ensure_future(batch.call("PUBLISH", "cafe:to:nobody", "x"))
    done, _ = await asyncio.wait({replicated, published}, return_when=asyncio.FIRST_COMPLETED)
    assert done == {published} and published.result() == 0
    assert await replicated == (True, 0)


async def test_while_commands_keep_coming_a_round_trip_leaves_once_a_window(client: aioredis.Redis) -> None:
    """The first command after a pause leaves at once. What comes within the window after it
    waits, and goes in the next round trip, which leaves a whole window after the first."""
    window = 0.3
    batch = Batched(client, window)
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert await batch.call("INCR", "w") == 1
    first_back = loop.time()
    assert first_back - started < window  # (it did not wait for a window)
    second = batch.submit("INCR", "w")
    await asyncio.sleep(0.01)
    third = batch.submit("INCR", "w")
    assert [(await second)[0], (await third)[0]] == [2, 3]
    assert loop.time() - started >= window
    assert (batch.trips, batch.sent) == (2, 3)


async def test_what_the_relay_queues_within_a_window_goes_as_one_message(client: aioredis.Redis) -> None:
    """The relay is asked for what it queued just before each round trip leaves: what it queued for
    one node in the window, over several turns of the loop, goes as one message, its envelopes in
    order, in the same round trip as a move written meanwhile."""
    store = await _store(client)
    await client.script_load(MOVE_PLAYED)
    relay = Relay(client, "a", {})
    listener = client.pubsub()
    await listener.subscribe(channel("b"))
    batch = batched(client)
    batch.window = 0.5  # (longer than a busy machine may stall the test between two lines)
    relay.publish("b", "first")  # after a pause: at once
    trips = batch.trips
    await asyncio.sleep(0.001)  # (the first round trip has left)
    relay.publish("b", "second")
    await asyncio.sleep(0.001)
    moved = asyncio.ensure_future(store.move_played("g-r1", 1, "m1"))
    relay.publish("b", "third")
    await moved
    assert batch.trips - trips == 2  # the first message's, then the move's with the rest
    got = [await published(listener, "the relay's messages") for _ in range(2)]
    assert [g["data"] for g in got] == ["first", "second\nthird"]
    await listener.aclose()


async def test_a_node_sends_in_the_window_its_configuration_gives() -> None:
    """``--redis-window`` (milliseconds) is the window of the node's round trips: 10 unless given,
    and 0 sends each as soon as the last is back."""
    url = "redis://127.0.0.1:1/0"  # (never connected)
    for argv, window in (([], 0.01), (["--redis-window", "0"], 0.0), (["--redis-window", "250"], 0.25)):
        config = load_config(["--redis", url, *argv], {})
        node = ClusterDirectory(config, Metrics(), url, "n1")
        assert batched(node.redis).window == window
        await node.redis.aclose()


async def test_a_gatherer_that_fails_stops_neither_the_others_nor_the_round_trip(
    client: aioredis.Redis,
) -> None:
    """A gatherer raising is logged; the next one still submits, and every command is answered."""
    batch = Batched(client)

    def broken() -> None:
        raise RuntimeError("broken")

    answers: list[asyncio.Future[tuple[object, int]]] = []
    batch.gathers(broken)
    batch.gathers(lambda: answers.append(batch.submit("INCR", "g")) if not answers else None)
    assert await batch.call("INCR", "g") in (1, 2)
    assert (await answers[0])[0] in (1, 2)
    assert await client.get("g") == "2"


async def test_a_backlog_goes_in_one_round_trip(client: aioredis.Redis) -> None:
    """However many commands wait (Redis stalled, say), the next round trip takes them all: none
    waits a window more, and what a gatherer submitted after checking the last answers goes with
    what came before it."""
    batch = Batched(client, 0.05)
    first = await batch.call("INCR", "b")
    trips = batch.trips
    answers = await asyncio.gather(*(batch.call("INCR", "b") for _ in range(1200)))
    assert first == 1 and sorted(answers) == list(range(2, 1202))
    assert batch.trips - trips == 1
