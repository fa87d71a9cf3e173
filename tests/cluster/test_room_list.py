"""The lobby's live room list across two nodes on one real Redis: a lobby watching the list on
one node is sent the rooms of every node as they change, and nothing for a private room's doings."""

from __future__ import annotations

import asyncio
from typing import Any

from server.directory.roomlist import LOBBY_EVERY
from tests.server.clients import WsClient
from tests.server.process import ServerProcess


def _told(message: dict[str, Any]) -> list[str] | None:
    """The rooms an unasked ``rooms`` names; ``None`` for any other message."""
    if message["type"] != "rooms" or message["id"] is not None:
        return None
    return [r["name"] for r in message["rooms"]]


async def test_a_lobby_is_sent_the_rooms_of_every_node_and_nothing_of_a_private_one(
    nodes: list[ServerProcess],
) -> None:
    """wat watches the list on node b. A private room's game on node a sends it nothing; a room
    opened on node a reaches it, and a room opened on node b after it comes with it, not alone."""
    pam = await WsClient.connect(nodes[0].port, "pam")
    assert (await pam.command("/join hidden"))["type"] == "ack"
    assert (await pam.command("/option private on"))["type"] == "ack"
    await asyncio.sleep(3 * LOBBY_EVERY)  # (its line and its going out of the list are told)
    wat = await WsClient.connect(nodes[1].port, "wat")
    assert (await wat.request({"type": "list_rooms"}))["rooms"] == []
    for command in ("/addbot greedy", "/option clock 30", "/start"):
        assert (await pam.command(command))["type"] == "ack"
    await asyncio.sleep(5 * LOBBY_EVERY)
    await wat.barrier()
    assert [x for x in wat.messages if _told(x) is not None] == []
    ann = await WsClient.connect(nodes[0].port, "ann")
    assert (await ann.command("/join alpha"))["type"] == "ack"
    told = await wat.next(lambda x: _told(x) is not None)
    assert _told(told) == ["alpha"]
    bob = await WsClient.connect(nodes[1].port, "bob")
    assert (await bob.command("/join beta"))["type"] == "ack"
    told = await wat.next(lambda x: _told(x) is not None and "beta" in (_told(x) or []))
    assert _told(told) == ["alpha", "beta"]
    assert told["rooms"][0]["seats"][0]["name"] == "ann"
