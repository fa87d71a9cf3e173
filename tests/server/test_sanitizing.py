"""Person-written text over real sockets: chat reaches every client as one clean line; names and
room names are checked whole."""

from __future__ import annotations

import re

import pytest

from server.app import Server
from tests.server.clients import LineClient, WsClient
from tests.terminal import columns, rows

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
    """A say with nothing left once sanitized (controls, format characters, spaces of any kind)
    gets empty_message, and nobody hears anything."""
    ann = await WsClient.connect(server.port, "ann")
    eve = await WsClient.connect(server.port, "eve")
    await ann.command("/room r1")
    await eve.command("/room r1")
    answer = await eve.request({"type": "say", "text": "\u001b\u0007\r\n\u202e\u3000\u00a0"})
    assert (answer["type"], answer["code"]) == ("error", "empty_message")
    await eve.request({"type": "say", "text": "after"})
    assert (await ann.next("chat"))["text"] == "after"


async def test_a_terminals_line_of_controls_only_reads_as_nothing_typed(server: Server) -> None:
    """At a terminal the whole line is cleaned first: a line of nothing but format and control
    characters is an empty line (ignored: nobody hears anything), and ``/say`` followed by them
    is ``/say`` alone (``bad_arguments``)."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/room r1")
    bob = await LineClient.connect(server.line_port, "bob")
    bob.writer.write(b"/room r1\r\n")
    await bob.expect("You are in room r1")
    bob.writer.write("\u200b\u202e\x07\r\n/say \u200b\u202e\r\n".encode())
    await bob.expect("[bad_arguments]")
    bob.writer.write(b"after\r\n")
    assert (await ann.next("chat"))["text"] == "after"
    assert [m["text"] for m in ann.messages if m["type"] == "chat"] == ["after"]


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


#: chat that would start a line of its own on a terminal: past 80 columns with a presence line
#: after its long word; as wide as a presence line's start with soft hyphens a terminal counts; in
#: wide characters; in East Asian ambiguous characters that a terminal set so draws two columns
#: wide. What the others read: every line after the first indented, each within 80 columns as a
#: terminal counts them, whether it draws the ambiguous characters narrow or wide.
FORGED_CHAT = [
    ("y" * 76 + " * tsVic leaves the room", ["<tsMal>", "    " + "y" * 76, "    * tsVic leaves the room"]),
    ("A" + "\u00ad" * 72 + "* tsVic gives up the seat", ["<tsMal> A* tsVic gives up the seat"]),
    ("渡辺" * 25, ["<tsMal>", "    " + "渡辺" * 19, "    " + "渡辺" * 6]),
    ("×" * 36 + "* tsVic leaves the room", ["<tsMal>", "    " + "×" * 36 + "*", "    tsVic leaves the room"]),
]
FORGED_TELL = [
    (
        "y" * 75 + " ! The server is stopping [shutting_down]",
        ["[tsMal tells you]", "    " + "y" * 75, "    ! The server is stopping [shutting_down]"],
    ),
    (
        "A" + "\u00ad" * 72 + "! The server is stopping [shutting_down]",
        ["[tsMal tells you] A! The server is stopping [shutting_down]"],
    ),
    (
        "°" * 31 + "! Not seated [not_seated]",
        ["[tsMal tells you]", "    " + "°" * 31 + "! Not seated", "    [not_seated]"],
    ),
]


def _shown(received: str, first: str) -> list[str]:
    """The lines received from the first that starts with ``first`` on, none that a terminal wraps,
    one that draws East Asian ambiguous characters narrow or one that draws them wide."""
    lines = received.split("\r\n")
    assert all(rows(line) == [line] for line in lines), [line for line in lines if columns(line) > 80]
    shown = lines[next(i for i, line in enumerate(lines) if line.startswith(first)) :]
    wide = [line for line in shown if rows(line, ambiguous_wide=True) != [line]]
    assert wide == [], [(line, columns(line, ambiguous_wide=True)) for line in wide]
    return shown


@pytest.mark.parametrize("typed", [True, False], ids=["typed", "json"])
async def test_chat_cannot_start_a_server_line_on_a_terminal(server: Server, typed: bool) -> None:
    """A chat whose end reads as a presence line, one of soft hyphens, one of wide characters and
    one of ``×`` (two columns where ambiguous characters are drawn wide), typed at a terminal or
    sent as JSON, reach a line client with every line after the first indented and every line
    within 80 columns as the terminal counts them, however it draws ambiguous characters."""
    assert server.line_port is not None
    vic = await LineClient.connect(server.line_port, "tsVic")
    await vic.line("/room r1")
    await vic.expect("You are in room r1")
    if typed:
        mal_line = await LineClient.connect(server.line_port, "tsMal")
        await mal_line.line("/room r1")
        await mal_line.expect("You are in room r1")
        for text, _ in FORGED_CHAT:
            await mal_line.line(text)
        await mal_line.line("done")
    else:
        mal = await WsClient.connect(server.port, "tsMal")
        await mal.command("/room r1")
        for text, _ in FORGED_CHAT:
            assert (await mal.request({"type": "say", "text": text}))["type"] == "ack"
        await mal.request({"type": "say", "text": "done"})
    shown = _shown(await vic.expect("<tsMal> done\r\n"), "<tsMal>")
    assert shown == [line for _, lines in FORGED_CHAT for line in lines] + ["<tsMal> done", ""]


@pytest.mark.parametrize("typed", [True, False], ids=["typed", "json"])
async def test_a_tell_cannot_start_an_error_line_on_a_terminal(server: Server, typed: bool) -> None:
    """A tell whose end reads as an error line, one of soft hyphens and one of ``°`` (two columns
    where ambiguous characters are drawn wide) reach a line client with the error's words indented
    or on the tell's own line, within 80 columns however the terminal draws ambiguous characters."""
    assert server.line_port is not None
    vic = await LineClient.connect(server.line_port, "tsVic")
    if typed:
        mal_line = await LineClient.connect(server.line_port, "tsMal")
        for text, _ in FORGED_TELL:
            await mal_line.line(f"/tell tsVic {text}")
        await mal_line.line("/tell tsVic done")
    else:
        mal = await WsClient.connect(server.port, "tsMal")
        for text, _ in FORGED_TELL:
            assert (await mal.request({"type": "tell", "name": "tsVic", "text": text}))["type"] == "tell"
        await mal.request({"type": "tell", "name": "tsVic", "text": "done"})
    shown = _shown(await vic.expect("[tsMal tells you] done\r\n"), "[tsMal tells you]")
    assert shown == [line for _, lines in FORGED_TELL for line in lines] + ["[tsMal tells you] done", ""]


async def test_chat_in_ascii_is_measured_as_sent(server: Server) -> None:
    """A reader in ASCII gets ``ß`` as ``ss``: a chat that fits 80 columns only as UTF-8 is carried
    on indented, not left for the terminal to wrap into a presence line."""
    assert server.line_port is not None
    vic = await LineClient.connect(server.line_port, "tsVic")
    await vic.line("/ascii on")
    await vic.line("/room r1")
    await vic.expect("You are in room r1")
    mal = await WsClient.connect(server.port, "tsMal")
    await mal.command("/room r1")
    await mal.request({"type": "say", "text": "ß" * 36 + "* tsVic leaves the room"})
    shown = _shown(await vic.expect("tsVic leaves the room\r\n"), "<tsMal>")
    assert shown == ["<tsMal>", "    " + "ss" * 36 + "*", "    tsVic leaves the room", ""]
