"""A room keeps its latest chat lines: whoever enters it, or comes back to it on a new connection,
gets them after the snapshot, oldest first, at most ``RECENT_CHAT``; a muted person's lines stay
held back; a member entering again gets no second copy."""

from __future__ import annotations

from typing import Any

from server.app import Server
from server.room.door import RECENT_CHAT
from tests.server.clients import WsClient


def _chats(messages: list[dict[str, Any]]) -> list[str]:
    return [m["text"] for m in messages if m["type"] == "chat"]


async def test_someone_entering_gets_the_rooms_latest_chat_after_the_snapshot(server: Server) -> None:
    """ann says three lines in room "talk"; bob enters: his snapshot, then the three lines in order."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.request({"type": "enter_room", "room": "talk"})
    for text in ("one", "two", "three"):
        await ann.request({"type": "say", "text": text})
    bob = await WsClient.connect(server.port, "bob")
    await bob.request({"type": "enter_room", "room": "talk"})
    await bob.barrier()
    kinds = [m["type"] for m in bob.messages]
    assert _chats(bob.messages) == ["one", "two", "three"]
    assert kinds.index("snapshot") < kinds.index("chat")
    assert all(m["name"] == "ann" and m["room"] == "talk" for m in bob.messages if m["type"] == "chat")


async def test_at_most_the_latest_lines_are_kept(server: Server) -> None:
    """Past RECENT_CHAT lines, the oldest go first."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.request({"type": "enter_room", "room": "long"})
    for i in range(RECENT_CHAT + 5):
        await ann.request({"type": "say", "text": f"line {i}"})
    bob = await WsClient.connect(server.port, "bob")
    await bob.request({"type": "enter_room", "room": "long"})
    await bob.barrier()
    assert _chats(bob.messages) == [f"line {i}" for i in range(5, RECENT_CHAT + 5)]


async def test_a_player_back_on_a_new_connection_gets_the_chat_once(server: Server) -> None:
    """A seated player whose connection was lost comes back with the token: the room's lines come
    once, and entering the room again (as the page does after its welcome) sends none again."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.request({"type": "join", "room": "back"})
    token = ann.messages[0]["token"]
    bob = await WsClient.connect(server.port, "bob")
    await bob.request({"type": "join", "room": "back"})
    await bob.request({"type": "say", "text": "are you there?"})
    await ann.close()
    again = await WsClient.connect(server.port)
    await again.request({"type": "hello", "name": "ann", "token": token})
    await again.request({"type": "enter_room", "room": "back"})
    await again.barrier()
    assert _chats(again.messages) == ["are you there?"]


async def test_a_muted_persons_kept_lines_are_held_back(server: Server) -> None:
    """carol muted ann: entering, carol gets bob's line and not ann's."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.request({"type": "enter_room", "room": "quiet"})
    bob = await WsClient.connect(server.port, "bob")
    await bob.request({"type": "enter_room", "room": "quiet"})
    await ann.request({"type": "say", "text": "from ann"})
    await bob.request({"type": "say", "text": "from bob"})
    carol = await WsClient.connect(server.port, "carol")
    await carol.request({"type": "list", "action": "mute", "name": "ann"})
    await carol.request({"type": "enter_room", "room": "quiet"})
    await carol.barrier()
    assert _chats(carol.messages) == ["from bob"]
