"""The line endpoint: telnet negotiation stripped, any line ending, a name prompt, text out."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from protocol import outgoing
from server.app import Server
from server.net.line import LineSplitter, strip_telnet
from tests.server.clients import LineClient, chat_form
from tests.server.conftest import ServerFactory

IAC, DO, WILL, SB, SE = 255, 253, 251, 250, 240


def test_strip_telnet_removes_negotiation_and_keeps_text() -> None:
    """IAC DO/WILL option triples and IAC SB ... IAC SE vanish; IAC IAC is a literal byte."""
    data = bytes([IAC, DO, 1, ord("a"), IAC, WILL, 3, ord("b"), IAC, SB, 24, 1, 2, IAC, SE, ord("c")])
    assert strip_telnet(data) == b"abc"
    assert strip_telnet(bytes([ord("x"), IAC, IAC])) == bytes([ord("x"), IAC])
    assert strip_telnet(b"plain\r\n") == b"plain\r\n"


async def test_telnet_client_with_negotiation_and_crlf_gets_a_name(server: Server) -> None:
    """A telnet client that negotiates and ends lines with CRLF is greeted by name."""
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port)
    client.writer.write(bytes([IAC, WILL, 24, IAC, DO, 1]) + b"tel\r\n")
    await client.expect("Hello tel!")


async def test_nc_client_with_bare_lf_and_utf8_chat(server: Server) -> None:
    """nc sends bare LF; UTF-8 chat arrives intact at another line client."""
    assert server.line_port is not None
    a = await LineClient.connect(server.line_port)
    await a.line("ncuser", end=b"\n")
    await a.expect("Hello ncuser!")
    b = await LineClient.connect(server.line_port, "other")
    await a.line("/room café", end=b"\n")
    await a.expect("[bad_room]")
    await a.line("/room -cafe", end=b"\n")  # the refusal says what a room name is
    refused = await a.expect("[bad_room]")
    assert "starting with a letter or\r\n    digit." in refused, refused
    await a.line("/room cafe", end=b"\n")
    await b.line("/room cafe")
    await b.expect("You are in room cafe")
    await a.line("Grüße aus Köln ☕", end=b"\n")
    await b.expect("<ncuser> Grüße aus Köln ☕")


async def test_a_taken_name_is_asked_again(server: Server) -> None:
    """The name prompt repeats after a refused name."""
    assert server.line_port is not None
    await LineClient.connect(server.line_port, "dup")
    client = await LineClient.connect(server.line_port)
    await client.line("dup")
    await client.expect("Someone is already called dup")
    await client.expect("Your name")
    await client.line("dup2")
    await client.expect("Hello dup2!")


async def test_overlong_line_is_refused_and_the_connection_closed(make_server: ServerFactory) -> None:
    """A line over the limit gets too_large, then the server hangs up."""
    server: Server = await make_server(max_line=128)
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port, "big")
    await client.line("x" * 500)
    await client.expect("[too_large]")
    rest = await client.reader.read()  # read to the end: the server hangs up
    assert b"line too long" in rest


async def test_quit_says_goodbye(server: Server) -> None:
    """/quit closes the connection with a goodbye."""
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port, "bye")
    await client.line("/quit")
    await client.expect("Goodbye!")


async def test_a_command_at_the_name_prompt_asks_for_the_name_and_quit_leaves(server: Server) -> None:
    """At the name prompt ``/help`` (no name begins with ``/``) is told to wait for a name, not
    refused as a bad name; ``/quit`` says goodbye and hangs up."""
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port)
    await client.line("/help")
    told = await client.expect("[hello_first]")
    assert "Type your name first" in told and "bad_name" not in told
    await client.expect("Your name")
    await client.line("/quit")
    await client.expect("Goodbye!")
    assert await client.reader.read() == b""  # the server hung up


async def test_the_starting_line_player_is_told_it_is_their_turn(server: Server) -> None:
    """When a game starts, a line player who begins sees the board and their turn at once."""
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port, "first")
    await line.line("/join go")
    await line.line("/option seed 1")
    await line.line("/addbot greedy")
    await line.line("/start")
    started = await line.expect("begins.")
    before_turn = await line.expect("It is your turn.")
    if "first begins." in started:  # told at once, before any other move
        assert "greedy-bot1 seats" not in before_turn and "greedy-bot1 sends" not in before_turn


async def test_a_line_player_s_pictures_come_from_the_room_without_a_patch_applied(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The picture a line player gets at each turn is the room's own (the one ``/board`` draws),
    and no patch is ever made into a message for a line client: its view comes from the room."""
    built: list[Any] = []
    patch = outgoing.Patch

    def counted(**fields: Any) -> Any:
        built.append(fields)
        return patch(**fields)

    monkeypatch.setattr(outgoing, "Patch", counted)
    assert server.line_port is not None
    line = await LineClient.connect(server.line_port, "lina")
    for command in ("/join pics", "/option seed 5", "/addbot greedy", "/start"):
        await line.line(command)
    for _turn in range(4):
        turn = await line.expect("It is your turn.")
        await line.line("/board")
        shown = await line.expect("It is your turn.")
        head = "Café International · room pics"
        assert turn[turn.rindex(head) :] == shown[shown.rindex(head) :]
        await line.line("/hint")
        hint = re.search(r"Hint: (.+) \([+-]\d+\)", await line.expect(")\r\n"))
        assert hint is not None
        await line.line(chat_form(hint.group(1)))
        await line.expect("lina ")
    assert built == []


async def test_ascii_mode_sends_no_byte_above_127(server: Server) -> None:
    """After /ascii on (typed at the name prompt), a whole game's text is ASCII: the board picture,
    hand, scores, help, and chat; /ascii off brings UTF-8 back."""
    assert server.line_port is not None
    other = await LineClient.connect(server.line_port, "jurgen")
    plain = await LineClient.connect(server.line_port)
    await plain.line("/ascii on")
    await plain.expect("Text in plain ASCII from now on.")
    await plain.expect("Your name")
    await plain.line("ascii")
    await plain.expect("Hello ascii!")
    start = plain._pos
    await other.line("/join plain")
    await other.line("/option seed 3")
    await plain.line("/join plain")
    await plain.expect("* You are in room plain")
    await other.line("Grüße ☕ — café, ½ Bier")
    await plain.expect("<jurgen> Gruesse ? - cafe, 1/2 Bier")
    await other.line("/start")
    await plain.expect("* A practice game: the room chose the seed.")
    answers = {
        "/board": "Cafe International | room plain",
        "/hand": "Your hand (",
        "/score": "score  hand  limit",
        "/help": "/ascii on/off",
        "/help ascii": "/ascii on/off - plain ASCII",
        "/who": "jurgen ",
        "/rooms": "seats: ",
        "/nosuch": "[unknown_command]",
    }
    for command, answer in answers.items():
        await plain.line(command)
        await plain.expect(answer)
    received = bytes(plain.received[start:])
    assert max(received) <= 127, received.decode()[:2000]
    await plain.line("/ascii off")
    await plain.expect("* Text in UTF-8 from now on.")
    await other.line("noch einmal ☕")
    await plain.expect("<jurgen> noch einmal ☕")


async def test_ascii_with_a_wrong_argument_is_refused(server: Server) -> None:
    """/ascii maybe is bad_arguments with the usage, at the prompt and after it."""
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port)
    await client.line("/ascii maybe")
    await client.expect("Usage: /ascii on/off")
    await client.expect("Your name")
    await client.line("asker")
    await client.expect("Hello asker!")
    await client.line("/ascii")
    await client.expect("[bad_arguments]")


@pytest.mark.parametrize(
    ("chunks", "lines"),
    [
        ([b"a\r\nb\r\n"], [b"a", b"b"]),
        ([b"a\nb\n"], [b"a", b"b"]),
        ([b"a\rb\r"], [b"a", b"b"]),
        ([b"a\r\x00b\r\x00"], [b"a", b"b"]),
        ([b"a\r", b"\nb\r", b"\n"], [b"a", b"b"]),
        ([b"a\r", b"\x00b\n"], [b"a", b"b"]),
        ([b"a\r\n\r\nb\n"], [b"a", b"", b"b"]),
        ([b"a\n\rb\r"], [b"a", b"", b"b"]),
        ([b"ab", b"c\r", b"d\n"], [b"abc", b"d"]),
    ],
)
def test_line_splitter_ends_lines_at_cr_lf_and_crlf(chunks: list[bytes], lines: list[bytes]) -> None:
    """CR, LF, CR LF and CR NUL each end one line, also when split between reads."""
    splitter = LineSplitter(80)
    assert [line for chunk in chunks for line in splitter.feed(chunk)] == lines
    assert splitter.pending == 0


def test_line_splitter_refuses_a_line_past_the_limit() -> None:
    """A line longer than the limit raises, ended or not."""
    with pytest.raises(ValueError, match="too long"):
        LineSplitter(8).feed(b"123456789\n")
    splitter = LineSplitter(8)
    splitter.feed(b"12345678")
    with pytest.raises(ValueError, match="too long"):
        splitter.feed(b"9")


async def test_a_bare_cr_ends_a_line(server: Server) -> None:
    """A client that ends lines with CR alone is answered line by line."""
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port)
    await client.line("crman", end=b"\r")
    await client.expect("Hello crman!")
    await client.line("/ping", end=b"\r")
    await client.expect("* pong")
    await client.line("/nosuch", end=b"\r")
    await client.expect("[unknown_command]")


async def test_crlf_split_between_reads_is_one_line_end(server: Server) -> None:
    """CR LF, even with the LF in a later packet, ends one line: no empty line, no extra prompt."""
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port)
    await client.line("1bad", end=b"\r")
    await client.expect("A name is")
    await asyncio.sleep(0.05)  # the LF arrives in a read of its own
    await client.line("", end=b"\n")
    await client.line("good", end=b"\r\n")
    await client.expect("Hello good!")
    assert client.text().count("Your name") == 2  # the first prompt and the one after 1bad


async def test_three_words_at_the_name_prompt_are_no_name_and_no_token(server: Server) -> None:
    """NAME TOKEN is two words, the second a token's 32 hex digits: three (``bad name here``),
    and two whose second is no token (``Hans Mueller``), are refused as a name (``bad_name``),
    not as a token that no longer holds."""
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port)
    for typed in ("bad name here", "Hans Mueller"):
        await client.line(typed)
        await client.expect("[bad_name]")
    assert "token" not in client.text()
    await client.line("good")
    await client.expect("Hello good!")


async def test_invalid_utf8_gets_bad_utf8_at_the_prompt_and_after(server: Server) -> None:
    """A line that is not UTF-8 is answered with bad_utf8 before and after the name, and ignored."""
    assert server.line_port is not None
    client = await LineClient.connect(server.line_port)
    client.writer.write(b"\xc3\x28\x80\r\n")
    await client.expect("[bad_utf8]")
    await client.expect("Your name")
    await client.line("utf")
    await client.expect("Hello utf!")
    client.writer.write(b"caf\xe9 au lait\r\n")
    await client.expect("! That line is not valid UTF-8 text; it was ignored. [bad_utf8]")
    await client.line("/ping")
    await client.line("/nosuch")
    await client.expect("[unknown_command]")
    assert "<utf>" not in client.text()


async def test_a_terminal_is_not_asked_for_passwords_it_would_give_in_vain(server: Server) -> None:
    """A guest's /password and /unregister, and a registered name's /register, are refused at
    once, with their codes, before any password prompt."""
    assert server.line_port is not None
    gus = await LineClient.connect(server.line_port, "gus")
    for command, code in (("/password", "not_registered"), ("/unregister", "not_registered")):
        await gus.line(command)
        said = await gus.expect(f"[{code}]")
        assert "Current password: " not in said and "Password: " not in said, said
    await gus.line("/register")
    for prompt in ("Password: ", "Password again: "):
        await gus.expect(prompt)
        await gus.line("correct horse battery")
    await gus.expect("is registered")
    await gus.line("/register")
    said = await gus.expect("[name_registered]")
    assert "Password: " not in said, said
    await gus.close()


async def test_a_terminal_reads_what_leave_invite_and_join_n_did(server: Server) -> None:
    """``/leave``, ``/invite`` and ``/join N`` are answered by a bare ``ack``: a terminal reads
    what each did; a refused one reads only its error, and a vote for another's seat its vote."""
    assert server.line_port is not None
    cy = await LineClient.connect(server.line_port, "cy")
    di = await LineClient.connect(server.line_port, "di")
    await cy.line("/join tea")
    await cy.expect("cy takes a seat")
    await cy.line("/invite nobody")
    await cy.line("/ping")
    refused = await cy.expect("* pong")
    assert "[not_connected]" in refused and "You invited" not in refused
    await cy.line("/invite di")
    await cy.expect("* You invited di to room tea.")
    await di.line("/join tea")
    await di.expect("di takes a seat")
    await cy.line("/option seed 3")
    await cy.line("/start")
    await di.expect("The game starts")
    await di.line("/leave")
    await di.expect("* You left room tea; you are in the lobby.")
    await di.line("/room tea")
    await di.expect("You are in room tea (playing).")
    await di.line("/join 2")
    await di.expect("* You play seat 2 again.")
    await di.line("/leave")
    await di.expect("* You left room tea; you are in the lobby.")
    await di.line("/leave")
    await di.line("/ping")
    assert "You left" not in await di.expect("* pong")  # (already in the lobby: not_in_room)
    # another's seat is asked for by a vote, which the room tells as it opens
    await cy.line("/leave")
    await cy.expect("* You left room tea")
    eve = await LineClient.connect(server.line_port, "eve")
    await eve.line("/room tea")
    await eve.expect("You are in room tea (playing).")
    await di.line("/room tea")
    await di.line("/join 2")
    await di.expect("* You play seat 2 again.")
    await eve.line("/join 1")
    await eve.line("/ping")
    assert "You play seat" not in await eve.expect("* pong")


async def test_an_option_set_to_its_value_at_a_terminal_says_so_to_the_setter_alone(server: Server) -> None:
    """``/option host on`` in a room whose host rule is on already: the terminal that typed it reads
    what the option is (an ack alone shows nothing there); the room's others read nothing of it."""
    assert server.line_port is not None
    ann = await LineClient.connect(server.line_port, "setter")
    bob = await LineClient.connect(server.line_port, "watcher")
    await ann.line("/join same")
    await ann.expect("takes a seat")
    await bob.line("/join same")
    await ann.expect("watcher takes a seat")
    await ann.line("/option host on")
    await ann.expect("setter turned host on")
    await ann.line("/option host off")
    await bob.expect("setter turned host off")
    told = bytes(bob.received)
    assert told.count(b"setter turned host") == 1, told
