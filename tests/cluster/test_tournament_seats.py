"""A tournament's seat in a cluster goes to the player who entered, not to whoever holds the name:
the directing node's table sends the seat's identity with the seat, and the node the name is
connected to moves only a connection of that identity."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import redis.asyncio as aioredis

from server.log.redis.tournaments import RedisTournaments
from tests.cluster.test_tournaments import director_of
from tests.server.clients import TIMEOUT, WsClient, http_get
from tests.server.process import ServerProcess

PASSWORD = "correct horse battery"


async def _tables(node: ServerProcess) -> list[dict[str, Any]]:
    """Tournament 1's tables once one has its game."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        tables: list[dict[str, Any]] = (await http_get(node.port, "/api/tournaments/1")).json()["tables"]
        if tables and all(t["game"] for t in tables):
            return tables
        assert time.monotonic() < deadline, tables
        await asyncio.sleep(0.05)


async def test_a_seat_on_another_node_goes_only_to_its_player(
    pair: list[ServerProcess], redis_url: str
) -> None:
    """On the node that does not direct, guest carl joins ann's Swiss and quits; someone else
    says hello there as carl: their ``join`` is refused (``name_taken``), and at the start the
    directing node's table moves ann to her seat but not the new carl."""
    a, b = pair
    client = aioredis.from_url(redis_url, decode_responses=True)
    try:
        holder = await director_of(client)
        other = b if str(holder).startswith("a:") else a
        ann = await WsClient.connect(other.port, "ann")
        assert (await ann.request({"type": "register", "password": PASSWORD}))["registered"] is True
        made = await ann.command("/tournament new cup swiss 1 size 2 clock 60 start +5m")
        assert made["type"] == "tournament", made
        # a guest's name that is connected nowhere puts him out within a second: the new hello
        # comes at once, and a try whose instant the director saw is made again under a new name
        for name in ("carl", "carla", "carlo"):
            carl = await WsClient.connect(other.port, name)
            assert (await carl.command("/tournament join cup"))["type"] == "ack"
            assert (await carl.request({"type": "command", "text": "/quit"}))["type"] == "ack"
            await carl.close()
            impostor = await WsClient.connect(other.port, name)
            refused = await impostor.command("/tournament join cup")
            if refused.get("code") == "name_taken":
                break
            await impostor.command("/tournament leave cup")  # (in on his own account: out again)
            await impostor.request({"type": "command", "text": "/quit"})
            await impostor.close()
        assert refused.get("code") == "name_taken", refused

        table = RedisTournaments(client)
        stored = await table.tournament(1)
        assert stored is not None
        assert await table.tournament_saved(stored.version, {**stored.state, "starts": time.time() - 1})
        (seats,) = await _tables(other)
        assert sorted(seats["players"]) == sorted(["ann", name])
        assert (await ann.next("seated"))["room"] == seats["room"]
        await impostor.settle()
        assert not [x for x in impostor.take_all() if x["type"] == "seated"]
    finally:
        await client.aclose()
