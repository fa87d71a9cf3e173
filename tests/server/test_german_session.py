"""A German session over real sockets reads German: every error code's sentence (each provoked as
``tests.server.test_error_codes`` does, by people who said hello in German), every option refusal
and notice, every help text, the room's words on a terminal and on a WebSocket; no English word
that is not command syntax (``tests.protocol.english``)."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.commands import COMMANDS
from protocol.options import KEYS
from server.app import Server
from tests.protocol.english import JSON_WORDS, english_words
from tests.server import clients
from tests.server.clients import LineClient, WsClient
from tests.server.conftest import ServerFactory
from tests.server.test_error_codes import CASES

#: the codes a server sends before it knows a language: to a client that has said no hello yet
BEFORE_HELLO = {"hello_first", "server_full", "shutting_down"}
#: the codes of a line client, provoked below after /lang de at the name prompt
LINE_ONLY = {"too_large", "bad_utf8"}
#: the codes that answer a program's JSON: JSON's true, false and null are syntax there
JSON_CODES = {"bad_json", "bad_field", "unknown_type", "bad_option"}
#: the names of people and rooms the cases use
NAMES = {
    "ann",
    "bob",
    "cem",
    "dan",
    "eve",
    "cid",
    "zoe",
    "later",
    "codes",
    "first",
    "second",
    "ghost",
    "nobody",
}
#: what a German line session reads from when it has chosen German
GERMAN_FROM = "Ab jetzt liest du alles auf Deutsch."
#: typed option values refused: none of the option's words, no option, or out of range
TYPED_REFUSED = [
    ("stammtisch", "ja"),
    ("seed", "bald"),
    ("clock", "bald"),
    ("absent", "vielleicht"),
    ("host", "ja"),
    ("private", "nein"),
    ("drawseat", "ja"),
    ("start", "erster"),
    ("uhr", "5"),
    ("clock", "2"),
    ("clock", "99999"),
    ("start", "9"),
    ("seed", "9" * 25),
]
#: option values sent as JSON and refused: another JSON type, out of range, no option
SENT_REFUSED: list[tuple[str, Any]] = [
    ("seed", -1),
    ("stammtisch", "on"),
    ("clock", "60"),
    ("absent", 3),
    ("host", 1),
    ("private", "yes"),
    ("drawseat", None),
    ("start", 9),
    ("clock", 2),
    ("uhr", 1),
]
#: every option set to each kind of value it takes, as typed
TYPED_SET = [
    ("stammtisch", "on"),
    ("stammtisch", "off"),
    ("clock", "60"),
    ("clock", "off"),
    ("absent", "drop"),
    ("absent", "bot"),
    ("drawseat", "on"),
    ("drawseat", "off"),
    ("private", "on"),
    ("private", "off"),
    ("seed", "7"),
    ("seed", "random"),
    ("start", "1"),
    ("start", "random"),
    ("start", "1"),  # (each a change: a value the option has already tells nobody anything)
    ("host", "off"),
    ("host", "on"),
]


@pytest.fixture
def german(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every hello a test's WebSocket clients say asks for German (unless it names a language)."""
    request = WsClient.request

    async def german_request(
        self: WsClient, message: dict[str, Any], timeout: float = clients.TIMEOUT
    ) -> dict[str, Any]:
        if message.get("type") == "hello" and "lang" not in message:
            message = {**message, "lang": "de"}
        return await request(self, message, timeout)

    monkeypatch.setattr(WsClient, "request", german_request)


def _words(message: dict[str, Any]) -> list[str]:
    """The words for people of a server message: an error's sentence, a notice's or text's text,
    a presence's detail (chat and tells are what people wrote, not the server's words)."""
    words = [message.get(field) for field in ("message", "text", "detail")]
    if message["type"] in ("chat", "tell"):
        return []
    return [w for w in words if isinstance(w, str) and w]


def _english_in(messages: list[dict[str, Any]], *, names: set[str] = NAMES) -> list[tuple[str, list[str]]]:
    found = []
    for message in messages:
        syntax = JSON_WORDS if message.get("code") in JSON_CODES else frozenset[str]()
        for text in _words(message):
            if english := english_words(text, syntax=syntax, names=names):
                found.append((text, english))
    return found


@pytest.mark.parametrize("code", sorted(set(CASES) - BEFORE_HELLO - LINE_ONLY))
async def test_every_error_code_reads_german(
    code: str, german: None, make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each error code, provoked among people who said hello in German, arrives with a German
    sentence; nothing else they were sent in the meantime holds English either."""
    provoke, settings = CASES[code]
    server: Server = await make_server(**settings)
    _, answer = await provoke(server, monkeypatch)
    assert answer["code"] == code, answer
    assert _english_in([answer]) == [], answer
    received = [m for c in clients.OPEN if isinstance(c, WsClient) for m in c.messages]
    assert _english_in(received) == []


async def _german_line(server: Server, name: str) -> LineClient:
    """A line client that chose German at the name prompt and came in as ``name``."""
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port)
    await client.line("/lang de")
    await client.expect("Dein Name")
    await client.line(name)
    await client.expect(f"Hallo {name}!")
    return client


async def _said(client: LineClient, line: str, until: str) -> str:
    await client.line(line)
    return await client.expect(until)


async def test_a_german_line_session_reads_german_from_refusals_to_the_board(server: Server) -> None:
    """A terminal in German: the room's state, /who, /info, every option refusal and what setting
    each option tells the room, the bots' kinds, a refused move's notation, the board, /help with
    every command's help, and the refusals of the line itself: all German but for syntax."""
    emil = await _german_line(server, "emil")
    await _said(emil, "/join tisch", "(wartet)")
    for line in ("/rooms", "/who", "/whereis emil", "/friends", "/lang fr", "/ascii maybe", "/addbot clever"):
        await emil.line(line)
    for key, typed in TYPED_REFUSED:
        await _said(emil, f"/option {key} {typed}", "]")
    for key, value in TYPED_SET:
        await _said(emil, f"/option {key} {value}", "* emil ")
    for strategy in ("greedy", "random", "strong"):
        await _said(emil, f"/addbot {strategy}", "Bot)")
    await _said(emil, "/addbot", "[room_full]")
    await _said(emil, "/info", "Beginnt: Platz 1.")
    await _said(emil, "/start", "Du bist am Zug.")
    await _said(emil, "/play zz@FR1s", "[bad_notation]")
    await _said(emil, "/play FRf", "[bad_notation]")
    for line in ("/moves", "/hand", "/score", "/board", "/help", *(f"/help {name}" for name in COMMANDS)):
        await emil.line(line)
    await _said(emil, "/help quit", "/quit")
    emil.writer.write(b"\xc3\x28\x80\r\n")  # not UTF-8
    await emil.expect("[bad_utf8]")
    await _said(emil, "/say " + "x" * 2000, "[too_large]")
    text = emil.text().split(GERMAN_FROM, 1)[1]
    for german in ("(wartet)", "(gieriger Bot)", "Es gibt keine Option 'uhr'", "Bedenkzeit", "Befehle"):
        assert german in text, german
    leftovers = [
        (line, found)
        for line in text.splitlines()
        if (found := english_words(line, names={"emil", "tisch", "uhr"}))
    ]
    assert leftovers == []


async def test_a_german_websocket_session_reads_german_for_typed_and_sent_options(
    german: None, server: Server
) -> None:
    """A WebSocket in German: each option refused as typed and as JSON, an unknown option, each
    option set and each bot seated, /info, /help of every command, a refused move: every error,
    notice, text and presence detail it receives is German but for syntax."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.command("/join stube"))["type"] == "ack"
    refused = [await ann.command(f"/option {key} {typed}") for key, typed in TYPED_REFUSED]
    refused += [
        await ann.request({"type": "option", "key": key, "value": value}) for key, value in SENT_REFUSED
    ]
    assert {r["code"] for r in refused} == {"bad_arguments", "bad_option", "bad_field"}
    assert {k for k, _ in TYPED_REFUSED} >= set(KEYS) and {k for k, _ in SENT_REFUSED} >= set(KEYS)
    for key, typed in TYPED_SET:
        assert (await ann.command(f"/option {key} {typed}"))["type"] == "ack"
    for strategy in ("greedy", "random", "strong"):
        assert (await ann.command(f"/addbot {strategy}"))["type"] == "ack"
    for line in ("/info", "/who", "/help", *(f"/help {name}" for name in COMMANDS), "/lang fr", "/start"):
        await ann.command(line)
    await ann.next(lambda m: m["type"] == "game_started")
    await ann.request({"type": "move", "move": "zz@FR1s"})
    await ann.command("/moves")
    await ann.barrier()
    kinds = {m["type"] for m in ann.messages}
    assert {"error", "notice", "text", "presence"} <= kinds
    assert [m["detail"] for m in ann.messages if m["type"] == "presence" and m.get("detail")] == [
        "gieriger Bot",
        "zufälliger Bot",
        "starker Bot",
    ]
    assert _english_in(ann.messages, names={"ann", "stube", "uhr"}) == []


async def test_a_hello_that_cannot_be_read_is_refused_in_the_language_it_names(server: Server) -> None:
    """A first message the server cannot take, naming ``"lang": "de"`` (a name not a string, a
    field too many, a type misspelt), is refused in German, as a well-formed hello refused is."""
    refusals = {}
    for message in (
        {"type": "hello", "name": 5, "lang": "de"},
        {"type": "hello", "name": "xa", "lang": "de", "extra": 1},
        {"type": "helo", "name": "xa", "lang": "de"},
        {"type": "hello", "name": 5, "lang": "fr"},
    ):
        client = await WsClient.connect(server.port)
        await client.send(message)
        answer = await client.next("error")
        refusals[str(message)] = (answer["code"], answer["message"])
    german, english = list(refusals.values())[:3], list(refusals.values())[3]
    assert [code for code, _ in german] == ["bad_field", "bad_field", "unknown_type"]
    assert all(not english_words(text) for _, text in german), german
    assert english[1].startswith("Field 'name'"), english  # (no language it speaks: English)


async def test_a_first_frame_nested_past_pythons_limit_is_bad_json(server: Server) -> None:
    """A first frame naming a language and nested deeper than Python's JSON reader goes is
    answered ``bad_json`` (in no language: it was not read), and the connection stays open."""
    client = await WsClient.connect(server.port)
    await client.ws.send('{"lang":"de","x":' + "[" * 3000)
    answer = await client.next("error")
    assert answer["code"] == "bad_json"
    assert (await client.request({"type": "hello", "name": "deep"}))["type"] == "welcome"
