"""A silenced person puts no words where everyone reads them: no new name, no new room, no
tournament (``silenced`` with the end time), while entering a room that is there stays open; the
staff's later commands reach the person under the name they silenced."""

from __future__ import annotations

import time

from server.app import Server
from server.log.contract import OPERATOR
from tests.server.clients import WsClient

PASSWORD = "correct-horse"


async def _staff(server: Server, name: str) -> WsClient:
    """``name`` connected, registered and made an admin by the operator."""
    client = await WsClient.connect(server.port, name)
    answer = await client.request({"type": "register", "password": PASSWORD})
    assert answer["type"] == "welcome" and answer["registered"], answer
    assert await server.store.role_set(name, "admin", by=OPERATOR)
    return client


async def _names(client: WsClient) -> set[str]:
    """The names ``/who`` lists."""
    answer = await client.request({"type": "who"})
    return {p["name"] for p in answer["people"]}


async def test_a_silenced_guest_keeps_its_name_and_opens_no_room(server: Server) -> None:
    """A silenced guest's ``nick`` and its ``enter_room`` into a room nobody made are
    ``silenced`` with the end time, and nothing changes: /who still lists it under its name, the
    room list has no such room; it enters a room that is there; ``/kick`` by that name closes it."""
    mona = await _staff(server, "mona")
    assert (await mona.command("/room cafe"))["type"] == "ack"
    hank = await WsClient.connect(server.port, "hank")
    assert (await mona.command("/silence hank 30m insults"))["type"] == "ack"
    assert "silenced until" in (await hank.next("notice"))["text"]
    end = time.strftime("%H:%M", time.gmtime(time.time() + 1800))[:2]
    for message in (
        {"type": "nick", "name": "MonaStinks"},
        {"type": "command", "text": "/nick MonaStinks"},
        {"type": "enter_room", "room": "Mona-is-a-fool"},
        {"type": "join", "room": "Mona-is-a-fool"},
    ):
        refused = await hank.request(message)
        assert (refused["type"], refused["code"]) == ("error", "silenced"), (message, refused)
        assert end in refused["message"] and "name" in refused["message"], refused
    names = await _names(mona)
    assert "hank" in names and "MonaStinks" not in names
    rooms = await mona.request({"type": "list_rooms"})
    assert "Mona-is-a-fool" not in {r["name"] for r in rooms["rooms"]}
    assert (await hank.command("/room cafe"))["type"] == "ack"  # a room that is there
    assert (await mona.command("/kick hank"))["type"] == "ack"


async def test_a_silenced_account_makes_no_tournament(server: Server) -> None:
    """A silenced account's ``/tournament new`` is ``silenced`` and lists no tournament; after
    ``/unsilence`` the same request makes one."""
    mona = await _staff(server, "mona")
    troll = await WsClient.connect(server.port, "troll")
    answer = await troll.request({"type": "register", "password": PASSWORD})
    assert answer["type"] == "welcome", answer
    assert (await mona.command("/silence troll 2h"))["type"] == "ack"
    new = {"type": "tournament", "action": "new", "name": "Mona-is-an-idiot", "kind": "swiss", "rounds": 3}
    refused = await troll.request(new)
    assert (refused["type"], refused["code"]) == ("error", "silenced"), refused
    listed = await mona.request({"type": "tournaments"})
    assert "Mona-is-an-idiot" not in str(listed), listed
    assert (await mona.command("/unsilence troll"))["type"] == "ack"
    made = await troll.request(new)
    assert made["type"] == "tournament", made
