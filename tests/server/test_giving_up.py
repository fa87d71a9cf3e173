"""Giving a seat up and taking it back, over real sockets: ``/quit`` during a game hands the seat to
a bot at once (or, with ``absent`` ``drop``, the player leaves the game) while the game keeps the
name; a registered player logs in again to the seat; a player the clock handed to a bot takes the
seat back with ``/join N`` without leaving the room; a password typed at the terminal is held to
the length a WebSocket field is."""

from __future__ import annotations

import pytest

from server.app import Server
from tests.server.clients import MAX_TURNS, LineClient, WsClient
from tests.server.conftest import ServerFactory

ROOM = "cafe"
PASSWORD = "Correct Horse"


async def _two_playing(
    server: Server, *options: str, ann: WsClient | None = None
) -> tuple[WsClient, WsClient]:
    """ann (seat 1) and bob (seat 2) in a started game, the room set with ``options``."""
    ann = ann or await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    assert (await ann.command(f"/join {ROOM}"))["type"] == "ack"
    for option in ("seed 8", *options):
        assert (await ann.command(f"/option {option}"))["type"] == "ack"
    assert (await bob.command(f"/join {ROOM}"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    return ann, bob


async def _to_move(client: WsClient) -> str | None:
    """The name to move as ``client`` reads the game now (``None``: no game running)."""
    await client.barrier()
    assert client.view is not None
    game = client.view["game"]
    return None if game is None or game.get("outcome") else str(game["to_move"])


async def _play(client: WsClient) -> None:
    moves = await client.request({"type": "legal_moves"})
    assert (await client.request({"type": "move", "move": moves["moves"][0]}))["type"] == "ack"


def _presence(client: WsClient, name: str, event: str) -> list[dict[str, object]]:
    return [
        x for x in client.messages if x["type"] == "presence" and x["name"] == name and x["event"] == event
    ]


async def test_quit_during_a_game_hands_the_seat_to_a_bot_at_once_and_the_game_keeps_the_name(
    server: Server,
) -> None:
    """With the resume window at its 300 s, ann's /quit makes a bot play her seat at once; nobody
    may say hello as ann while the game runs, and her token brings nobody back."""
    ann, bob = await _two_playing(server)
    token = ann.token
    assert (await ann.command("/quit"))["type"] == "ack"
    await ann.close()
    replaced = await bob.next(lambda x: x["type"] == "presence" and x["event"] == "replaced_by_bot")
    assert (replaced["name"], replaced["detail"]) == ("ann", "left the game")
    # the bot plays ann's turns: the game goes on with bob alone at the keyboard
    for _ in range(6):
        if await _to_move(bob) == "bob":
            await _play(bob)
        else:
            await bob.next(lambda x: x["type"] == "played" and x["player"] == "ann")
    assert [x["auto"] for x in bob.messages if x["type"] == "played" and x["player"] == "ann"][-1] is True
    impostor = await WsClient.connect(server.port)
    assert (await impostor.request({"type": "hello", "name": "ann"}))["code"] == "name_taken"
    back = await impostor.request({"type": "hello", "name": "ann", "token": token})
    assert back["code"] == "bad_token"


async def test_quit_with_absent_drop_leaves_the_game_at_once(server: Server) -> None:
    """In a room set with absent drop, ann's /quit (typed at a terminal) is her leaving the game:
    with two players the game is over at once, and bob has won."""
    assert server.line_port is not None
    bob = await WsClient.connect(server.port, "bob")
    assert (await bob.command(f"/join {ROOM}"))["type"] == "ack"
    assert (await bob.command("/option absent drop"))["type"] == "ack"
    ann = await LineClient.connect(server.line_port, "ann")
    await ann.line(f"/join {ROOM}")
    await bob.next(lambda x: x["type"] == "presence" and x["name"] == "ann" and x["event"] == "joined")
    assert (await bob.command("/start"))["type"] == "ack"
    await ann.line("/quit")
    await ann.expect("Goodbye!")
    over = await bob.next("game_over")
    left = [x for x in bob.messages if x["type"] == "played" and x["move"] == "leave ann"]
    assert len(left) == 1 and left[0]["auto"] is True
    assert over["ranking"] == ["bob", "ann"]


async def test_a_registered_player_who_quit_logs_in_again_to_the_seat(server: Server) -> None:
    """A registered ann who typed /quit during a game has her seat and hand back at her next login,
    and the room reads that she is back."""
    ann = await WsClient.connect(server.port, "ann")
    assert (await ann.request({"type": "register", "password": PASSWORD}))["registered"] is True
    ann, bob = await _two_playing(server, ann=ann)
    assert (await ann.command("/quit"))["type"] == "ack"
    await ann.close()
    await bob.next(lambda x: x["type"] == "presence" and x["event"] == "replaced_by_bot")
    again = await WsClient.connect(server.port, "ann", password=PASSWORD)
    await bob.next(lambda x: x["type"] == "presence" and x["name"] == "ann" and x["event"] == "back")
    await again.barrier()
    assert again.view is not None and again.view["seat"] is not None
    assert again.view["game"]["hand"], again.view["game"]


async def test_a_player_the_clock_handed_to_a_bot_takes_the_seat_back_with_join(
    make_server: ServerFactory,
) -> None:
    """ann lets a one-second clock run out three turns in a row and a bot takes her seat; still
    in the room, /join 1 gives it back to her at once (``ack``, bob reads ``back``), and she plays
    her next turn herself."""
    server: Server = await make_server(clock_min=1.0)
    ann, bob = await _two_playing(server, "clock 1")
    for _ in range(MAX_TURNS):
        if _presence(bob, "ann", "replaced_by_bot"):
            break
        if await _to_move(bob) == "bob":
            await _play(bob)
        else:
            await bob.next(lambda x: x["type"] in ("played", "presence"), timeout=15)
    [replaced] = _presence(bob, "ann", "replaced_by_bot")
    assert replaced["detail"] == "ran out of time three times in a row"
    assert (await ann.command("/join 1"))["type"] == "ack"
    await bob.next(lambda x: x["type"] == "presence" and x["name"] == "ann" and x["event"] == "back")
    since = len(ann.messages)
    for _ in range(MAX_TURNS):
        mover = await _to_move(ann)
        if mover == "ann":
            await _play(ann)
            break
        if mover == "bob":
            await _play(bob)
        await ann.next("played", timeout=15)
    mine = [x for x in ann.messages[since:] if x["type"] == "played" and x["player"] == "ann"]
    assert mine and mine[-1]["auto"] is False


#: what a terminal reads, in English and in German: the clock set, a bot taking its seat, the
#: seat taken back, and its turn
_STOOD_IN = {
    "en": (
        "set the clock to 1 second",
        "* A bot plays your seat: your time ran out three times. /join 1 takes it back.",
        "* You play seat 1 again.",
        "It is your turn.",
    ),
    "de": (
        "Bedenkzeit auf 1 Sekunde",
        "* Ein Bot spielt deinen Platz: deine Zeit lief dreimal ab.",  # (80 columns: /join 1 goes on below)
        "* Du spielst wieder auf Platz 1.",
        "Du bist am Zug.",
    ),
}


@pytest.mark.parametrize("language", ["en", "de"])
async def test_a_terminal_whose_seat_a_bot_plays_reads_no_turns_until_it_takes_it_back(
    make_server: ServerFactory, language: str
) -> None:
    """cy, at a terminal, lets a one-second clock run out three turns in a row: she reads that a
    bot plays her seat and how to take it back, and no "It is your turn." at the turns the bot
    plays for her; /join 1 gives the seat back, and her next turn is hers again. In German too,
    whose room messages come in German words already."""
    clock, told, back, your_turn = _STOOD_IN[language]
    server: Server = await make_server(clock_min=1.0)
    assert server.line_port is not None
    cy = await LineClient.connect(server.line_port, "cy")
    bob = await WsClient.connect(server.port, "bob")
    for line in (f"/lang {language}", "/join cafe", "/option seed 8", "/option clock 1"):
        await cy.line(line)
    await cy.expect(clock)
    assert (await bob.command("/join cafe"))["type"] == "ack"
    await cy.line("/start")
    for _ in range(MAX_TURNS):
        if _presence(bob, "cy", "replaced_by_bot"):
            break
        if await _to_move(bob) == "bob":
            await _play(bob)
        else:
            await bob.next(lambda x: x["type"] in ("played", "presence"), timeout=15)
    await cy.expect(told)
    stood_in = 0
    for _ in range(MAX_TURNS):  # two turns the bot plays for cy
        mover = await _to_move(bob)
        if mover == "bob":
            await _play(bob)
        else:
            played = await bob.next("played", timeout=15)
            stood_in += played["player"] == "cy"
        if stood_in == 2:
            break
    await cy.line("/ping")
    assert your_turn not in await cy.expect("* pong")
    await cy.line("/join 1")
    await cy.expect(back)
    if await _to_move(bob) == "bob":
        await _play(bob)
    await cy.expect(your_turn)


async def test_a_password_longer_than_a_field_is_refused_at_the_terminal(server: Server) -> None:
    """/register at the terminal with a 201-character password is refused as the same password
    in a WebSocket ``register`` is (``bad_field``), and registers nothing; 200 characters do. A
    password typed to log in is cut to 200 characters, as the terminal stored longer ones before."""
    assert server.line_port is not None
    ann = await LineClient.connect(server.line_port, "ann")
    for length, answer in (
        (201, "A password has at most 200 characters. [bad_field]"),
        (200, "ann is registered"),
    ):
        await ann.line("/register")
        for prompt in ("Password: ", "Password again: "):
            await ann.expect(prompt)
            await ann.line("x" * length)
        await ann.expect(answer)
    bob = await WsClient.connect(server.port)
    login = await bob.request({"type": "hello", "name": "ann", "password": "x" * 200})
    assert login["type"] == "welcome"
    # a password typed to be checked is cut to 200, as the terminal once stored longer ones
    again = await LineClient.connect(server.line_port)
    await again.line("ann")
    await again.expect("Password: ")
    await again.line("x" * 250)
    await again.expect("Hello ann!")
