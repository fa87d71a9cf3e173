"""Accounts and ratings in a cluster: the account lives in Redis, so a name registered through
one node logs in through another, and a rated game's ratings are read through any node."""

from __future__ import annotations

import json

from tests.server.clients import WsClient, http_get
from tests.server.process import ServerProcess

PASSWORD = "correct horse battery"


async def test_an_account_made_through_one_node_logs_in_through_another(quick: list[ServerProcess]) -> None:
    """Registered through a, the name needs its password through b, and the right one works;
    a rated game played through a is read through b's HTTP API."""
    a, b = quick
    ann = await WsClient.connect(a.port, "ann")
    assert (await ann.request({"type": "register", "password": PASSWORD}))["registered"] is True
    bob = await WsClient.connect(a.port, "bob")
    assert (await bob.request({"type": "register", "password": PASSWORD}))["registered"] is True
    guest = await WsClient.connect(b.port)
    assert (await guest.request({"type": "hello", "name": "ann"}))["code"] == "name_registered"
    assert (await guest.request({"type": "hello", "name": "ann", "password": "wrong password"}))[
        "code"
    ] == "bad_password"
    await ann.command("/join crated")
    assert (await ann.command("/option absent drop"))["type"] == "ack"
    assert (await bob.command("/join crated"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    await bob.close()
    over = await ann.next("game_over", timeout=30)
    assert set(over["ratings"]) == {"ann", "bob"}
    status, _, body = await http_get(b.port, "/api/players/ann")
    assert status == 200 and json.loads(body)["rating"] == over["ratings"]["ann"]["after"]
    dan = await WsClient.connect(b.port, "dan")
    people = {p["name"]: p for p in (await dan.request({"type": "who"}))["people"]}
    assert people["ann"]["rating"] == f"{over['ratings']['ann']['after']}?"  # read from Redis
    await ann.close()
    again = await WsClient.connect(b.port, "ann", password=PASSWORD)
    assert again.name == "ann"
