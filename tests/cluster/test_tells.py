"""Tells and friends' news between nodes on one real Redis: a tell reaches its recipient on the
other node as if they were here (mutes, ``/reply``), and is ``unavailable`` when it cannot be
handed on."""

from __future__ import annotations

import asyncio
import json
import signal

import redis.asyncio as aioredis

from tests.cluster.conftest import RedisServer
from tests.server.clients import WsClient
from tests.server.process import ServerProcess


def _tells(client: WsClient) -> list[tuple[str, str, str]]:
    return [
        (x["name"], x["to"], x["text"]) for x in client.messages if x["type"] == "tell" and x["id"] is None
    ]


async def _sees(client: WsClient, *names: str) -> None:
    """Wait until ``client``'s node lists ``names`` among the people of the cluster (each node
    writes its people to Redis in the background)."""
    for _ in range(100):
        people = {p["name"] for p in (await client.request({"type": "who"}))["people"]}
        if set(names) <= people:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{names} never listed: {people}")


async def test_a_tell_reaches_someone_on_the_other_node_and_reply_comes_back(
    nodes: list[ServerProcess],
) -> None:
    """ann on a tells Bob on b: Bob gets it, ann gets her echo naming Bob as he spells it; Bob's
    ``/reply`` travels back to ann."""
    ann = await WsClient.connect(nodes[0].port, "ann")
    bob = await WsClient.connect(nodes[1].port, "Bob")
    await _sees(ann, "Bob")
    echo = await ann.command("/tell bob hello from a")
    assert (echo["type"], echo["name"], echo["to"], echo["text"]) == ("tell", "ann", "Bob", "hello from a")
    got = await bob.next("tell")
    assert (got["name"], got["to"], got["text"], got["id"]) == ("ann", "Bob", "hello from a", None)
    answer = await bob.command("/reply and back from b")
    assert (answer["type"], answer["to"]) == ("tell", "ann")
    back = await ann.next(lambda x: x["type"] == "tell" and x["id"] is None)
    assert (back["name"], back["to"], back["text"]) == ("Bob", "ann", "and back from b")


async def test_a_muted_teller_on_another_node_reaches_nobody_and_is_not_the_one_to_reply_to(
    nodes: list[ServerProcess],
) -> None:
    """Bob on b mutes ann: her tell from a is echoed to her (she is not told) but never reaches
    Bob, and Bob's ``/reply`` goes to cid, who told him after her."""
    ann = await WsClient.connect(nodes[0].port, "ann")
    cid = await WsClient.connect(nodes[0].port, "cid")
    bob = await WsClient.connect(nodes[1].port, "bob")
    assert (await bob.command("/mute ann"))["type"] == "ack"
    await _sees(ann, "bob")
    assert (await ann.command("/tell bob you cannot hear me"))["type"] == "tell"
    # cid's tell leaves node a after ann's: once Bob has it, node b has handled hers
    assert (await cid.command("/tell bob but me"))["type"] == "tell"
    await bob.next("tell")
    await bob.barrier()
    assert _tells(bob) == [("cid", "bob", "but me")]
    assert (await bob.command("/reply hi cid"))["to"] == "cid"
    assert (await cid.next(lambda x: x["type"] == "tell" and x["id"] is None))["text"] == "hi cid"
    await ann.barrier()
    assert _tells(ann) == []


async def test_a_tell_to_a_node_that_died_is_unavailable(nodes: list[ServerProcess], redis_url: str) -> None:
    """Node b is killed; while its list of people is still in Redis (written back here, so that
    the test does not race its expiry) a tell to bob finds no node listening: ``unavailable``,
    and no echo."""
    ann = await WsClient.connect(nodes[0].port, "ann")
    await WsClient.connect(nodes[1].port, "bob")
    await _sees(ann, "bob")
    nodes[1].proc.send_signal(signal.SIGKILL)
    await asyncio.wait_for(nodes[1].proc.wait(), 10)
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        entry = {"name": "bob", "kind": "person", "room": None, "guest": True}
        await client.hset("cafe:online:b", "bob", json.dumps(entry))
        await client.set("cafe:name:bob", "b")
        answer = await ann.command("/tell bob are you there")
    finally:
        await client.aclose()
    assert (answer["type"], answer["code"]) == ("error", "unavailable")
    await ann.barrier()
    assert [x for x in ann.messages if x["type"] == "tell"] == []


async def test_a_tell_while_redis_is_away_is_unavailable(
    nodes: list[ServerProcess], redis_server: RedisServer
) -> None:
    """With Redis stopped, a tell to someone on the other node is ``unavailable``; once Redis is
    back, the same tell goes through."""
    ann = await WsClient.connect(nodes[0].port, "ann")
    bob = await WsClient.connect(nodes[1].port, "bob")
    await _sees(ann, "bob")
    redis_server.stop()
    answer = await ann.command("/tell bob anyone?")
    assert (answer["type"], answer["code"]) == ("error", "unavailable")
    redis_server.start()
    await redis_server.wait_ready()
    for _ in range(50):  # the nodes reconnect and write their people again
        answer = await ann.command("/tell bob now?")
        if answer["type"] == "tell":
            break
        await asyncio.sleep(0.5)
    assert answer["type"] == "tell", answer
    assert (await bob.next("tell"))["text"] == "now?"
    assert "anyone?" not in [t for _, _, t in _tells(bob)]


async def test_friends_on_the_other_node_hear_of_a_connection_and_a_game_start(
    nodes: list[ServerProcess],
) -> None:
    """bob on b has cara as a friend: he is told when she connects to a and when she starts a game
    there."""
    bob = await WsClient.connect(nodes[1].port, "bob")
    assert (await bob.command("/friend cara"))["type"] == "ack"
    cara = await WsClient.connect(nodes[0].port, "cara")
    online = await bob.next(lambda x: x["type"] == "notice" and "online" in x["text"])
    assert online["text"] == "Your friend cara is online."
    assert (await cara.command("/join den"))["type"] == "ack"
    assert (await cara.command("/addbot greedy"))["type"] == "ack"
    assert (await cara.command("/start"))["type"] == "ack"
    started = await bob.next(lambda x: x["type"] == "notice" and "started" in x["text"])
    assert started["text"] == "Your friend cara started a game in room den: /watch den."


async def test_a_friend_coming_back_through_the_other_node_is_no_news(nodes: list[ServerProcess]) -> None:
    """cara, connected to a, logs in again through b with her token: the connection on a goes,
    and bob, her friend, hears nothing more: she never went."""
    bob = await WsClient.connect(nodes[1].port, "bob")
    assert (await bob.command("/friend cara"))["type"] == "ack"
    cara = await WsClient.connect(nodes[0].port, "cara")
    await bob.next(lambda x: x["type"] == "notice" and "online" in x["text"])
    await _sees(bob, "cara")
    bob.take_all()
    await WsClient.connect(nodes[1].port, "cara", token=cara.token)
    await asyncio.sleep(0.5)  # (news from a would come in a few ms)
    await bob.barrier()
    assert not [x for x in bob.take_all() if x["type"] == "notice"]


async def test_an_invitation_reaches_someone_on_the_other_node(nodes: list[ServerProcess]) -> None:
    """ann in a room on a invites Bob on b: Bob is told which room and by whom; someone connected
    nowhere is ``not_connected``."""
    ann = await WsClient.connect(nodes[0].port, "ann")
    bob = await WsClient.connect(nodes[1].port, "Bob")
    await _sees(ann, "Bob")
    assert (await ann.command("/room parlour"))["type"] == "ack"
    assert (await ann.command("/invite bob"))["type"] == "ack"
    invited = await bob.next("invited")
    assert (invited["room"], invited["name"]) == ("parlour", "ann")
    assert (await ann.command("/invite nobody"))["code"] == "not_connected"


async def test_lobby_chat_reaches_the_lobby_of_every_node_but_who_mutes_it(
    nodes: list[ServerProcess],
) -> None:
    """ann says something in the lobby of a: Bob in the lobby of b reads it once, as said; cid,
    who mutes ann on b, and dan, in a room on b, do not; Bob's answer comes back to ann once."""
    ann = await WsClient.connect(nodes[0].port, "ann")
    bob = await WsClient.connect(nodes[1].port, "Bob")
    cid = await WsClient.connect(nodes[1].port, "cid")
    dan = await WsClient.connect(nodes[1].port, "dan")
    assert (await cid.command("/mute ann"))["type"] == "ack"
    assert (await dan.command("/room elsewhere"))["type"] == "ack"
    assert (await ann.request({"type": "say", "text": "hello from a"}))["type"] == "ack"
    heard = await bob.next("chat")
    assert (heard["room"], heard["name"], heard["text"]) == (None, "ann", "hello from a")
    assert (await bob.request({"type": "say", "text": "hello from b"}))["type"] == "ack"
    back = await ann.next(lambda x: x["type"] == "chat" and x["name"] == "Bob")
    assert (back["room"], back["text"]) == (None, "hello from b")
    for client in (ann, bob, cid, dan):
        await client.barrier()
    for client in (ann, bob):
        assert sorted(x["text"] for x in client.messages if x["type"] == "chat") == [
            "hello from a",
            "hello from b",
        ]
    assert [x["name"] for x in cid.messages if x["type"] == "chat"] == ["Bob"]
    assert not [x for x in dan.messages if x["type"] == "chat"]
