"""Quick pairing across two nodes with a real redis-server: one queue, people on different nodes
seated together, seeking seen in ``/who`` on every node (README "Quick pairing")."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

import redis.asyncio as aioredis

from server.cluster.seekqueue import SEEKS
from tests.server.clients import WsClient, bot_game, eventually
from tests.server.process import ServerProcess


async def _seated(client: WsClient) -> dict[str, Any]:
    seated = await client.next("seated", timeout=15)
    snapshot = await client.next(lambda x: x["type"] == "snapshot" and x["view"]["room"] == seated["room"])
    assert snapshot["view"]["you"] == client.name and len(snapshot["view"]["game"]["hand"]) == 5
    return seated


async def test_two_on_two_nodes_sit_at_one_table_and_play(nodes: list[ServerProcess]) -> None:
    """ann on node a and bob on node b seek a table of 2: both are seated in the same new room
    (owned by one node, played from both), and the player to move plays a move both see."""
    ann = await WsClient.connect(nodes[0].port, "ann")
    bob = await WsClient.connect(nodes[1].port, "bob")
    assert (await ann.command("/seek 2"))["type"] == "seeking"
    assert (await bob.command("/seek 2"))["type"] == "seeking"
    a, b = await _seated(ann), await _seated(bob)
    assert a["room"] == b["room"] and sorted(a["players"]) == ["ann", "bob"]
    assert ann.view is not None
    mover = ann if ann.view["game"]["to_move"] == "ann" else bob
    other = bob if mover is ann else ann
    moves = await mover.request({"type": "legal_moves"})
    assert (await mover.request({"type": "move", "move": moves["moves"][0]}))["type"] == "ack"
    played = await other.next("played")
    assert played["player"] == mover.name


async def test_four_from_two_nodes_make_one_table_of_four(nodes: list[ServerProcess]) -> None:
    """Two seekers on each node, of any size, within a few seconds: one table of four."""
    clients = [
        await WsClient.connect(nodes[i % 2].port, name) for i, name in enumerate(("ann", "bob", "cid", "dan"))
    ]
    for client in clients:
        assert (await client.command("/seek"))["type"] == "seeking"
    tables = [await _seated(c) for c in clients]
    assert len({t["room"] for t in tables}) == 1 and len(tables[0]["players"]) == 4


async def test_seeking_shows_on_the_other_node_and_unseek_ends_it_there_too(
    nodes: list[ServerProcess],
) -> None:
    """ann seeks on node a: bob's ``/who`` on node b marks her seeking; after her ``/unseek``
    it no longer does, and a seeker who comes later on b waits alone (nobody is paired with a
    seek that ended)."""
    ann = await WsClient.connect(nodes[0].port, "ann")
    bob = await WsClient.connect(nodes[1].port, "bob")
    assert (await ann.command("/seek 2"))["type"] == "seeking"

    async def marked() -> bool:
        people = {p["name"]: p for p in (await bob.request({"type": "who"}))["people"]}
        return bool(people.get("ann", {}).get("seeking"))

    for _ in range(50):
        if await marked():
            break
        await asyncio.sleep(0.1)
    assert await marked()
    assert (await ann.command("/unseek"))["type"] == "ack"
    for _ in range(50):
        if not await marked():
            break
        await asyncio.sleep(0.1)
    assert not await marked()
    assert (await bob.command("/seek 2"))["type"] == "seeking"
    cid = await WsClient.connect(nodes[0].port, "cid")
    assert (await cid.command("/seek 2"))["type"] == "seeking"
    b, c = await _seated(bob), await _seated(cid)
    assert sorted(b["players"]) == sorted(c["players"]) == ["bob", "cid"]
    await ann.barrier()
    assert not [x for x in ann.messages if x["type"] == "seated"]


async def test_the_seeks_of_a_node_that_died_are_dropped(nodes: list[ServerProcess], redis_url: str) -> None:
    """bob seeks on node b, which is killed: once b's heartbeat has lapsed its seeks leave the
    queue, and ann, seeking on node a, is not seated with the gone bob."""
    ann = await WsClient.connect(nodes[0].port, "ann")
    bob = await WsClient.connect(nodes[1].port, "bob")
    assert (await bob.command("/seek 3"))["type"] == "seeking"
    nodes[1].proc.send_signal(signal.SIGKILL)
    await asyncio.wait_for(nodes[1].proc.wait(), 10)
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        for _ in range(100):  # (b's heartbeat lapses within 5/3 of the lease)
            if not await client.hexists(SEEKS, "bob"):
                break
            await asyncio.sleep(0.1)
        assert not await client.hexists(SEEKS, "bob")
        assert (await ann.command("/seek 3"))["type"] == "seeking"
        await asyncio.sleep(2)
        assert list(await client.hkeys(SEEKS)) == ["ann"]
    finally:
        await client.aclose()
    await ann.barrier()
    assert not [x for x in ann.messages if x["type"] == "seated"]


async def test_a_refused_join_in_a_room_on_the_other_node_leaves_the_seek(
    nodes: list[ServerProcess], redis_url: str
) -> None:
    """ann, on node b, watches a game of a room node a runs and seeks: her ``join`` there is
    ``game_running`` (answered by a through the relay) and the seek stands in Redis, no notice
    told; a seat taken in a waiting room of node a ends it, with one."""
    host = await WsClient.connect(nodes[0].port, "host")
    await bot_game(host, "busy")
    other = await WsClient.connect(nodes[0].port, "other")
    assert (await other.command("/join cafe"))["type"] == "ack"
    ann = await WsClient.connect(nodes[1].port, "ann")
    assert (await ann.command("/watch busy"))["type"] == "ack"
    assert (await ann.command("/seek 2 clock 30"))["type"] == "seeking"
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        assert await client.hexists(SEEKS, "ann")
        ann.take_all()
        refused = await ann.request({"type": "join"})
        assert refused["code"] == "game_running", refused
        await ann.barrier()
        assert not [x for x in ann.take_all() if x["type"] == "notice"]
        assert await client.hexists(SEEKS, "ann")
        assert (await ann.command("/join cafe"))["type"] == "ack"
        assert "No longer seeking." in [x["text"] for x in ann.take_all() if x["type"] == "notice"]
        await eventually(lambda: _gone(client, "ann"), "ann's seek dropped")
    finally:
        await client.aclose()


async def _gone(client: aioredis.Redis, name: str) -> bool:
    return not await client.hexists(SEEKS, name)
