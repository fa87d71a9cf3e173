"""Person-written text over real sockets: chat reaches every client as one clean line; names and
room names are checked whole."""

from __future__ import annotations

import re

import pytest

from server.app import Server
from tests.server.clients import LineClient, WsClient

#: what a hostile chat line carries, and the one line a terminal shows for it
PAYLOADS = [
    ("A\u001b[2JB", "A[2JB"),
    ("\u001b]0;owned\u0007title", "]0;ownedtitle"),
    ("\u001b]2;owned\u001b\\title", "]2;owned\\title"),
    ("\u001bcreset", "creset"),
    ("bell\u0007", "bell"),
    ("abc\u0008\u0008\u0008xyz", "abcxyz"),
    ("over\rwrite", "over write"),
    ("nul\u0000byte", "nulbyte"),
    ("c1\u009b2Jcsi", "c12Jcsi"),
    ("\u202egnp.exe", "gnp.exe"),
    ("line\u2028sep", "line sep"),
    ("G\nH* The game starts", "G H* The game starts"),
]
FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


async def test_hostile_chat_reaches_a_line_client_as_one_clean_line(server: Server) -> None:
    """Escape sequences, controls, C1, bidi overrides and line breaks in a JSON say arrive at a line
    client as one line each, without any of those characters."""
    assert server.line_port is not None
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/room r1")
    bob = await LineClient.connect(server.line_port, "bob")
    await bob.line("/room r1")
    await bob.expect("You are in room r1")
    for text, _ in PAYLOADS:
        answer = await ann.request({"type": "say", "text": text})
        assert answer["type"] == "ack", answer
    await ann.request({"type": "say", "text": "done"})
    received = await bob.expect("<ann> done\r\n")
    chat = [line for line in received.split("\r\n") if line.startswith("<ann> ")]
    assert chat == [f"<ann> {clean}" for _, clean in PAYLOADS] + ["<ann> done"]
    assert not FORBIDDEN.search(received)
    assert not any(line.startswith(("H*", "* The game")) for line in received.split("\r\n"))


async def test_hostile_chat_reaches_websocket_clients_sanitized(server: Server) -> None:
    """The chat message other WebSocket clients get carries the sanitized text."""
    ann = await WsClient.connect(server.port, "ann")
    eve = await WsClient.connect(server.port, "eve")
    await ann.command("/room r1")
    await eve.command("/room r1")
    await eve.request({"type": "say", "text": "x\u001b[31my\u202e\nz"})
    chat = await ann.next("chat")
    assert (chat["name"], chat["text"]) == ("eve", "x[31my z")


async def test_typed_chat_from_a_line_client_is_sanitized(server: Server) -> None:
    """Control characters a terminal user types do not reach the others."""
    assert server.line_port is not None
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/room r1")
    bob = await LineClient.connect(server.line_port, "bob")
    await bob.line("/room r1")
    await bob.expect("You are in room r1")
    bob.writer.write("hi\x1b[2J\x07\u009b\u202ethere\r\n".encode())
    chat = await ann.next("chat")
    assert chat["text"] == "hi[2Jthere"


async def test_chat_of_controls_only_is_refused(server: Server) -> None:
    """A say with nothing left once sanitized gets empty_message, and nobody hears anything."""
    ann = await WsClient.connect(server.port, "ann")
    eve = await WsClient.connect(server.port, "eve")
    await ann.command("/room r1")
    await eve.command("/room r1")
    answer = await eve.request({"type": "say", "text": "\u001b\u0007\r\n\u202e"})
    assert (answer["type"], answer["code"]) == ("error", "empty_message")
    await eve.request({"type": "say", "text": "after"})
    assert (await ann.next("chat"))["text"] == "after"


@pytest.mark.parametrize("name", ["ann\n", "ann\r\n", "ann\nbob"])
async def test_a_name_with_a_line_break_is_refused(server: Server, name: str) -> None:
    """A name that is valid up to a trailing line break is refused with bad_name."""
    client = await WsClient.connect(server.port)
    answer = await client.request({"type": "hello", "name": name})
    assert (answer["type"], answer["code"]) == ("error", "bad_name")
    nick = await WsClient.connect(server.port, "zed")
    answer = await nick.request({"type": "nick", "name": name})
    assert (answer["type"], answer["code"]) == ("error", "bad_name")


async def test_a_room_name_with_a_line_break_is_refused(server: Server) -> None:
    """A room name with a trailing line break is refused with bad_room."""
    client = await WsClient.connect(server.port, "ann")
    answer = await client.request({"type": "enter_room", "room": "r1\n"})
    assert (answer["type"], answer["code"]) == ("error", "bad_room")
