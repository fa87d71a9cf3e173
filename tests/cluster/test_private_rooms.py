"""Private rooms across two nodes on one real Redis: an invitation made on one node lets its invitee
in from the other, a stranger is turned away wherever they connect, no node names the room to
outsiders, and a private game's record answers its players alone on every node."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from tests.cluster.conftest import two_nodes
from tests.server.clients import WsClient, http_get
from tests.server.process import ServerProcess

PASSWORD = "correct horse battery"
JSON = "application/json"  # (asked for as a program asks)


async def _sees(client: WsClient, name: str, **fields: Any) -> dict[str, Any]:
    """Wait until ``client``'s node lists ``name`` with ``fields`` (each node writes its people to
    Redis in the background), and return the entry."""
    entry: dict[str, Any] | None = None
    for _ in range(100):
        people = {p["name"]: p for p in (await client.request({"type": "who"}))["people"]}
        entry = people.get(name)
        if entry is not None and all(entry[k] == v for k, v in fields.items()):
            return entry
        await asyncio.sleep(0.1)
    raise AssertionError(f"{name} never listed with {fields}: {entry}")


async def _private(node: ServerProcess, name: str = "ann", room: str = "geheim") -> WsClient:
    client = await WsClient.connect(node.port, name)
    assert (await client.command(f"/join {room}"))["type"] == "ack"
    assert (await client.command("/option private on"))["type"] == "ack"
    return client


async def test_an_invitation_on_one_node_lets_its_invitee_in_on_the_other(nodes: list[ServerProcess]) -> None:
    """ann's private room lives on a. zoe on b is turned away until ann invites her; then she
    enters from b, and invites cid on a in turn, who enters too. bob on b, never invited, stays in
    the lobby, and nobody in the room hears of his try."""
    a, b = nodes
    ann = await _private(a)
    zoe = await WsClient.connect(b.port, "zoe")
    bob = await WsClient.connect(b.port, "bob")
    cid = await WsClient.connect(a.port, "cid")
    await _sees(zoe, "ann", private=True)
    for attempt in ("/room geheim", "/join GEHEIM", "/watch geheim"):
        assert (await zoe.command(attempt))["code"] == "not_invited"
    await _sees(ann, "zoe")
    assert (await ann.command("/invite zoe"))["type"] == "ack"
    assert (await zoe.next("invited"))["room"] == "geheim"
    assert (await zoe.command("/room geheim"))["type"] == "ack"
    await zoe.barrier()
    assert zoe.view is not None and zoe.view["room"] == "geheim" and zoe.view["spectators"] == ["zoe"]
    await _sees(zoe, "cid")
    assert (await zoe.command("/invite cid"))["type"] == "ack"
    await cid.next("invited")  # (on the guest list by then: cid's own node put him there)
    assert (await cid.command("/join geheim"))["type"] == "ack"
    answer = await bob.request({"type": "enter_room", "room": "geheim"})
    assert answer["code"] == "not_invited"
    assert (await bob.command("/board"))["code"] == "not_in_room"
    await ann.barrier()
    assert not [x for x in ann.messages if x["type"] == "presence" and x["name"] == "bob"]


async def test_a_name_registered_again_finds_none_of_the_old_account_s_invitations(
    nodes: list[ServerProcess],
) -> None:
    """zoe on b, invited to ann's room on a, deletes her account and plays on as zoe2, still
    invited; mal, who registers the name zoe afterwards on a, is not."""
    a, b = nodes
    ann = await _private(a)
    zoe = await WsClient.connect(b.port, "zoe")
    assert (await zoe.request({"type": "register", "password": "correct horse battery"}))["registered"]
    await _sees(ann, "zoe")
    assert (await ann.command("/invite zoe"))["type"] == "ack"
    await zoe.next("invited")
    assert (await zoe.request({"type": "unregister", "password": "correct horse battery"}))[
        "registered"
    ] is False
    assert (await zoe.command("/nick zoe2"))["type"] == "welcome"
    mal = await WsClient.connect(a.port, "mal")
    await _sees(mal, "zoe2")
    assert (await mal.command("/nick zoe"))["type"] == "welcome"
    assert (await mal.request({"type": "register", "password": "correct horse battery"}))["registered"]
    assert (await mal.command("/room geheim"))["code"] == "not_invited"
    answer = await zoe.command("/room geheim")
    assert answer["type"] == "ack", answer


async def test_an_invitation_lists_its_invitee_as_they_are_when_it_arrives(
    nodes: list[ServerProcess], redis_url: str
) -> None:
    """zoe on b registers, and ann on a invites her before a's list of people need say so: the
    guest list holds zoe's account, the identity her token carries, and nothing else (a's copy of
    b's people may still say guest, and a guest's identity there would let nobody in, or, after
    an account deleted, let the name's next holder in)."""
    a, b = nodes
    ann = await _private(a)
    zoe = await WsClient.connect(b.port, "zoe")
    await _sees(ann, "zoe")
    welcome = await zoe.request({"type": "register", "password": PASSWORD})
    assert welcome["registered"]
    assert (await ann.command("/invite zoe"))["type"] == "ack"
    await zoe.next("invited")
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        assert await client.hget(f"cafe:token:{welcome['token']}", "identity") == "account:zoe"
        hosts = await client.hget(f"cafe:token:{ann.token}", "identity")  # (in it as it turned private)
        assert await client.smembers("cafe:guests:geheim") == {hosts, "account:zoe"}
    finally:
        await client.aclose()
    assert (await zoe.command("/room geheim"))["type"] == "ack"


async def test_should_a_node_not_know_yet_the_room_turns_the_stranger_away(
    nodes: list[ServerProcess], redis_url: str
) -> None:
    """Were b a moment behind (the room's private mark not in Redis yet), its lobby lets bob try;
    the room on a refuses him and tells b: bob hears ``not_invited`` and is in no room."""
    a, b = nodes
    ann = await _private(a)
    bob = await WsClient.connect(b.port, "bob")
    await _sees(bob, "ann", private=True)
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        assert await client.srem("cafe:private", "geheim") == 1
    finally:
        await client.aclose()
    assert (await bob.command("/join geheim"))["code"] == "not_invited"
    assert (await bob.command("/board"))["code"] == "not_in_room"
    assert (await bob.command("/join 2"))["code"] == "not_in_room"
    await ann.barrier()
    assert ann.view is not None and ann.view["spectators"] == []


async def test_no_node_names_a_private_room_to_outsiders(nodes: list[ServerProcess]) -> None:
    """zoe on b sees ann "in a private room" in ``/who``, ``/whereis`` and ``/friends``, and hears
    that her friend started a game in a private room, never its name; ann sees her own room."""
    a, b = nodes
    zoe = await WsClient.connect(b.port, "zoe")
    assert (await zoe.command("/friend ann"))["type"] == "ack"
    ann = await _private(a)
    entry = await _sees(zoe, "ann", private=True)
    assert entry["room"] is None
    zoe.raw.clear()  # (before b heard that the room turned private, it was public: named then)
    assert (await zoe.command("/whereis ann"))["people"][0]["room"] is None
    assert (await zoe.command("/friends"))["friends"] == [
        {"name": "ann", "online": True, "room": None, "private": True}
    ]
    assert (await _sees(ann, "ann"))["room"] == "geheim"
    assert (await ann.command("/addbot"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    started = await zoe.next(lambda x: x["type"] == "notice" and "started" in x["text"])
    assert started["text"] == "Your friend ann started a game in a private room."
    await zoe.barrier()
    assert not [x for x in zoe.raw if "geheim" in x]


async def test_a_game_turned_private_is_its_players_alone_on_every_node(
    redis_url: str, tmp_path: Path
) -> None:
    """ann (a) and bob (b), registered, start a game in a public room and turn it private; once it
    is over, each node answers its record to ann and bob and to nobody else; outsiders' lists of
    ann's games leave it out."""
    async with two_nodes(redis_url, tmp_path, "--hash-memory", "1024") as (a, b):
        players = []
        for node, name in ((a, "ann"), (b, "bob")):
            client = await WsClient.connect(node.port, name)
            welcome = await client.request({"type": "register", "password": PASSWORD})
            client.token = welcome["token"]
            players.append(client)
        ann, bob = players
        assert (await ann.command("/join salon"))["type"] == "ack"
        assert (await ann.command("/option absent drop"))["type"] == "ack"
        assert (await bob.command("/join salon"))["type"] == "ack"
        assert (await ann.command("/start"))["type"] == "ack"
        assert (await ann.command("/option private on"))["type"] == "ack"
        assert (await bob.command("/leave"))["type"] == "ack"
        await ann.next("game_over")
        history = (await ann.command("/history"))["text"]
        game_id = history.split()[2]
        zoe = await WsClient.connect(b.port, "zoe")
        for node in (a, b):
            assert (await http_get(node.port, f"/api/games/{game_id}", accept=JSON)).status == 404
            replay = await http_get(node.port, f"/api/games/{game_id}/replay", zoe.token, JSON)
            assert replay.status == 404
            for player in (ann, bob):
                assert (await http_get(node.port, f"/api/games/{game_id}", player.token, JSON)).status == 200
        assert game_id not in (await zoe.command("/history ann"))["text"]
        assert game_id in (await bob.command("/history ann"))["text"]
        games = (await http_get(b.port, "/api/players/ann/games")).json()["games"]
        assert game_id not in [g["id"] for g in games]


async def test_a_private_room_moves_with_its_guests_when_its_node_dies(nodes: list[ServerProcess]) -> None:
    """The node owning ann's private room with a game running is killed: the other node takes the
    room up, private as it was; zoe, a guest watching from there, follows it, ann comes back with
    her token, and bob, never invited, is still turned away."""
    a, b = nodes
    ann = await _private(a)
    zoe = await WsClient.connect(b.port, "zoe")
    bob = await WsClient.connect(b.port, "bob")
    await _sees(ann, "zoe")
    assert (await ann.command("/invite zoe"))["type"] == "ack"
    await zoe.next("invited")
    assert (await zoe.command("/room geheim"))["type"] == "ack"
    assert (await ann.command("/addbot"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await zoe.next("game_started")
    await zoe.barrier()
    zoe.take_all()  # from here on, only what follows the node's death
    a.proc.send_signal(signal.SIGKILL)
    await asyncio.wait_for(a.proc.wait(), 10)
    followed = await zoe.next(lambda x: x["type"] == "snapshot", timeout=20)
    assert followed["room"] == "geheim" and followed["view"]["options"]["private"] is True
    assert followed["view"]["state"] == "playing" and followed["view"]["spectators"] == ["zoe"]
    again = await WsClient.connect(b.port, "ann", token=ann.token)
    mine = await again.next("snapshot", timeout=20)
    assert mine["view"]["seat"] == 0
    assert (await bob.command("/room geheim"))["code"] == "not_invited"
    await zoe.barrier()
    assert not [x for x in zoe.messages if x["type"] == "error"]
