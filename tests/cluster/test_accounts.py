"""Accounts and ratings in a cluster: the account lives in Redis, so a name registered through
one node logs in through another, and a rated game's ratings are read through any node."""

from __future__ import annotations

import asyncio
import contextlib
import json

from websockets.exceptions import ConnectionClosed

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


async def _open(client: WsClient, seconds: float) -> bool:
    """Whether ``client`` is still open after ``seconds`` (reading whatever comes meanwhile)."""
    with contextlib.suppress(TimeoutError, ConnectionClosed):
        await client.next(lambda m: False, timeout=seconds)
    with contextlib.suppress(ConnectionClosed, TimeoutError):
        await client.request({"type": "ping"}, timeout=2)
        return True
    return False


async def test_two_logins_at_once_through_two_nodes_leave_one_connection(quick: list[ServerProcess]) -> None:
    """The password sent through both nodes at the same moment, eight times: both may be
    welcomed, but a moment later one connection holds the name (the other closed as replaced),
    and ``who`` lists it once."""
    a, b = quick
    owner = await WsClient.connect(a.port, "dual")
    assert (await owner.request({"type": "register", "password": PASSWORD}))["registered"] is True
    await owner.close()
    watcher = await WsClient.connect(b.port, "watcher")
    for _ in range(8):
        first, second = await WsClient.connect(a.port), await WsClient.connect(b.port)
        hello = {"type": "hello", "name": "dual", "password": PASSWORD}
        # (one may be closed as replaced before its welcome is written: the other took the name)
        await asyncio.gather(first.request(hello), second.request(hello), return_exceptions=True)
        still = await asyncio.gather(_open(first, 0.5), _open(second, 0.0))
        assert sorted(still) == [False, True], still
        people = [p["name"] for p in (await watcher.request({"type": "who"}))["people"]]
        assert people.count("dual") == 1, people
        await asyncio.gather(first.close(), second.close())


async def test_an_account_deleted_through_one_node_as_another_logs_in_is_nobody_s(
    quick: list[ServerProcess],
) -> None:
    """``/unregister`` through a and a login through b at the same moment, eight times: a moment
    later no connection holds the name as the account that is gone."""
    a, b = quick
    for round_ in range(8):
        name = f"gone{round_}"
        owner = await WsClient.connect(a.port, name)
        assert (await owner.request({"type": "register", "password": PASSWORD}))["registered"] is True
        other = await WsClient.connect(b.port)
        await asyncio.gather(
            owner.request({"type": "unregister", "password": PASSWORD}),
            other.request({"type": "hello", "name": name, "password": PASSWORD}),
            return_exceptions=True,
        )
        status, _, _ = await http_get(a.port, f"/api/players/{name}")
        if status == 404:  # deleted: whoever is still connected under the name is a guest
            for client in (owner, other):
                if client.name == name and await _open(client, 0.5):
                    rating = await client.request({"type": "command", "text": "/rating"})
                    assert rating["type"] == "error" and rating["code"] == "no_such_player", rating
                    welcomes = [x for x in client.messages if x["type"] == "welcome"]
                    assert welcomes[-1]["registered"] is False, welcomes
        await asyncio.gather(owner.close(), other.close())
