"""Tournaments in a cluster of two nodes on a real Redis: any node answers the commands, one node
directs (the holder of the tournaments' lease), players on either node are seated, and when the
directing node is killed the other takes the lease, the rooms and the tournament, and the
tournament ends on it."""

from __future__ import annotations

import asyncio
import signal
import time
from typing import Any

import redis.asyncio as aioredis

from server.cluster.tournaments import KEY
from server.log.redis.store import lease_key
from server.log.redis.tournaments import RedisTournaments
from tests.cluster.conftest import TIMINGS
from tests.server.clients import TIMEOUT, WsClient, bot_game, http_get
from tests.server.process import ServerProcess

PASSWORD = "correct horse battery"


async def _api(node: ServerProcess, until: str, timeout: float = TIMEOUT) -> dict[str, Any]:
    """Tournament 1 as ``node`` answers, once its tables have games (``games``) or its status is
    ``until``."""
    deadline = time.monotonic() + timeout
    while True:
        found: dict[str, Any] = (await http_get(node.port, "/api/tournaments/1")).json()
        tables = found.get("tables", [])
        if until == "games" and len(tables) == 2 and all(t["game"] for t in tables):
            return found
        if found.get("tournament", {}).get("status") == until:
            return found
        assert time.monotonic() < deadline, found
        await asyncio.sleep(0.05)


async def director_of(client: aioredis.Redis) -> str:
    """The holder of the tournaments' lease (``NODE:...``), once a node holds it."""
    deadline = time.monotonic() + TIMEOUT
    while (holder := await client.get(KEY)) is None:
        assert time.monotonic() < deadline, "nobody directs"
        await asyncio.sleep(0.05)
    return str(holder)


async def _leave(person: WsClient, deadline: float) -> None:
    """``person`` leaves their room, asking again while the answer is ``unavailable``: the room's
    lease may show the living node a moment before that node has taken the room up, and until
    then a message for it reaches nobody (PROTOCOL.md: ask again)."""
    while (answer := await person.request({"type": "leave_room"}))["type"] != "ack":
        assert answer.get("code") == "unavailable" and time.monotonic() < deadline, answer
        await asyncio.sleep(TIMINGS.renew_every / 2)


async def test_an_entrant_on_the_other_node_hears_the_tournament_closed(pair: list[ServerProcess]) -> None:
    """ann, on node a, makes a tournament and closes it; bob, who joined it on node b, is told
    (through b); dee, who did not join, hears nothing."""
    a, b = pair
    ann = await WsClient.connect(a.port, "ann")
    assert (await ann.request({"type": "register", "password": PASSWORD}))["registered"] is True
    assert (await ann.command("/tournament new cup arena 30 start +5m"))["type"] == "tournament"
    bob, dee = await WsClient.connect(b.port, "bob"), await WsClient.connect(b.port, "dee")
    assert (await bob.command("/tournament join cup"))["type"] == "ack"
    assert (await ann.command("/tournament close cup"))["type"] == "ack"
    told = await bob.next(lambda m: m["type"] == "notice" and "closed" in m["text"])
    assert told["text"] == "Tournament cup was closed: no more tables are made."
    await dee.barrier()
    assert not [m for m in dee.messages if m["type"] == "notice" and "closed" in m["text"]]


async def test_the_directing_node_dies_mid_round_and_the_other_ends_the_tournament(
    pair: list[ServerProcess], redis_url: str
) -> None:
    """ann makes a Swiss of one round on node b; bob, cy and dee join on node b too. Node a, the
    first to tick, holds the lease and seats both tables (their rooms on a, the players told on
    b). a is killed mid-round: b takes the lease and the rooms; each table's game ends when one
    of its players leaves it, and b records both results and ends the tournament."""
    a, b = pair
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        holder = await director_of(client)
        director, other = (a, b) if str(holder).startswith("a:") else (b, a)
        people = {}
        for name in ("ann", "bob", "cy", "dee"):
            people[name] = await WsClient.connect(other.port, name)
        welcome = await people["ann"].request({"type": "register", "password": PASSWORD})
        assert welcome["registered"] is True
        made = await people["ann"].command("/tournament new cup swiss 1 size 2 clock 60 start +5m")
        assert made["type"] == "tournament", made
        for name in ("bob", "cy", "dee"):
            assert (await people[name].command("/tournament join cup"))["type"] == "ack"
        # the start, now: written over the version read, as any writer does
        table = RedisTournaments(client)
        stored = await table.tournament(1)
        assert stored is not None
        assert await table.tournament_saved(stored.version, {**stored.state, "starts": time.time() - 1})

        seated = await _api(other, "games")
        rooms = {t["room"]: t["players"] for t in seated["tables"]}
        for name, person in people.items():
            told = await person.next("seated")
            assert name in rooms[told["room"]]
        director.proc.send_signal(signal.SIGKILL)
        await asyncio.wait_for(director.proc.wait(), 10)

        dead = str(holder).split(":")[0] + ":"
        deadline = time.monotonic() + TIMEOUT
        while (now := await client.get(KEY)) is None or str(now).startswith(dead):
            assert time.monotonic() < deadline, "the lease did not move"
            await asyncio.sleep(TIMINGS.renew_every / 2)
        alive = "b:" if dead == "a:" else "a:"
        for room, players in rooms.items():  # once the living node runs the room, its loser leaves
            while not str(await client.get(lease_key(room)) or "").startswith(alive):
                assert time.monotonic() < deadline + TIMEOUT, f"{room} did not move"
                await asyncio.sleep(TIMINGS.renew_every / 2)
            await _leave(people[sorted(players)[1]], deadline + TIMEOUT)
        final = await _api(other, "finished")
        points = {s["name"]: s["points"] for s in final["standings"]}
        winners = {sorted(players)[0] for players in rooms.values()}
        assert {n for n, p in points.items() if p == 1.0} == winners and sum(points.values()) == 2.0
    finally:
        await client.aclose()


async def test_a_round_leaves_a_player_to_the_game_they_play_on_another_node(
    pair: list[ServerProcess], redis_url: str
) -> None:
    """cy plays a game against a bot on the node that does not direct; ann and bob wait there
    too. The Swiss round seats ann and bob and leaves cy to her game: the director learns who
    plays where from Redis."""
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        holder = await director_of(client)
        other = pair[1] if str(holder).startswith("a:") else pair[0]
        people = {name: await WsClient.connect(other.port, name) for name in ("ann", "bob", "cy")}
        assert (await people["ann"].request({"type": "register", "password": PASSWORD}))["registered"]
        made = await people["ann"].command("/tournament new cup swiss 1 size 2 clock 60 start +5m")
        assert made["type"] == "tournament", made
        for name in ("bob", "cy"):
            assert (await people[name].command("/tournament join cup"))["type"] == "ack"
        await bot_game(people["cy"], "cys-room")
        table = RedisTournaments(client)
        stored = await table.tournament(1)
        assert stored is not None
        assert await table.tournament_saved(stored.version, {**stored.state, "starts": time.time() - 1})
        deadline = time.monotonic() + TIMEOUT
        while not (found := (await http_get(other.port, "/api/tournaments/1")).json())["tables"]:
            assert time.monotonic() < deadline, found
            await asyncio.sleep(0.05)
        assert [sorted(t["players"]) for t in found["tables"]] == [["ann", "bob"]]
        await people["ann"].next("seated")
        assert people["cy"].view is not None and people["cy"].view["state"] == "playing"
        assert not [x for x in people["cy"].messages if x["type"] == "seated"]
    finally:
        await client.aclose()
