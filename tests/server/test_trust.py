"""Nobody takes what is not theirs, over real sockets: answers carry their ids, a newer connection
replaces an older one cleanly, a chosen seed stays secret, and only the seated change a room."""

from __future__ import annotations

import asyncio

import pytest
from structlog.testing import capture_logs
from websockets.exceptions import ConnectionClosed

from server.app import Server
from tests.server.clients import WsClient


@pytest.mark.parametrize("text", ["/help", "/help play", "/history", "/board", "/hand", "/score"])
async def test_text_answers_carry_the_id_of_the_command(server: Server, text: str) -> None:
    """/help, /history, /board, /hand and /score answer with a ``text`` that echoes the id."""
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    await ann.command("/join ids")
    await bob.command("/join ids")
    assert (await ann.command("/start"))["type"] == "ack"
    await ann.send({"type": "command", "text": text, "id": 1000})
    answer = await ann.next(lambda m: m["type"] in ("text", "error"))
    assert (answer["type"], answer["id"]) == ("text", 1000), answer


async def test_a_newer_connection_replaces_the_older_one_cleanly(server: Server) -> None:
    """Resuming while the old connection is open: the old one is closed with 1008 and gets nothing
    more, the room hears ``away`` then ``back`` (no failure), and the new one owns the seat."""
    with capture_logs() as logs:
        await _replace(server, logs)


async def _replace(server: Server, logs: list[dict[str, object]]) -> None:
    ann = await WsClient.connect(server.port, "ann")
    bob = await WsClient.connect(server.port, "bob")
    await ann.command("/join swap")
    await bob.command("/join swap")
    await bob.command("/option seed 5")
    assert (await bob.command("/start"))["type"] == "ack"
    await ann.next("game_started")
    assert (await ann.request({"type": "ping"}))["type"] == "pong"  # all before it has arrived
    ann.take_all()
    new = await WsClient.connect(server.port, "ann", token=ann.token)
    assert new.messages[-1]["resumed"] is True
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await ann._receive(5)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    assert ann.take_all() == []
    away = await bob.next(lambda m: m["type"] == "presence" and m["event"] == "away")
    back = await bob.next(lambda m: m["type"] == "presence" and m["event"] == "back")
    assert away["name"] == back["name"] == "ann"
    await new.next("snapshot")
    assert new.view is not None and new.view["seat"] is not None
    to_move = new.view["game"]["to_move"]
    mover = new if to_move == "ann" else bob
    moves = await mover.request({"type": "legal_moves"})
    assert (await mover.request({"type": "move", "move": moves["moves"][0]}))["type"] == "ack"
    room = server.lobby.rooms["swap"]
    assert [s.session is not None for s in room.seats] == [True, True]
    assert not [e for e in logs if e["event"] == "room_failed"]


async def test_a_chosen_seed_stays_secret_and_makes_a_practice_game(server: Server) -> None:
    """Others see only that a seed was chosen; game_started says practice; game_over reveals it."""
    ann = await WsClient.connect(server.port, "ann")
    zoe = await WsClient.connect(server.port, "zoe")
    await ann.command("/join secret")
    await zoe.command("/room secret")
    assert (await ann.command("/option seed 42"))["type"] == "ack"
    notice = await zoe.next("notice")
    assert "42" not in notice["text"] and "practice" in notice["text"]
    await zoe.settle(0.1)
    assert zoe.view is not None and zoe.view["options"]["seed"] == "set"
    assert all("42" not in raw for raw in zoe.raw)
    rooms = await zoe.request({"type": "list_rooms"})
    assert rooms["rooms"][0]["options"]["seed"] == "set"
    await ann.command("/addbot random")
    await ann.command("/start")
    started = await zoe.next("game_started")
    assert started["practice"] is True
    assert (await ann.command("/option seed random"))["code"] == "game_running"


async def test_a_random_seed_is_no_practice_game(server: Server) -> None:
    """Without a chosen seed the game is not a practice game."""
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/join real")
    await ann.command("/addbot random")
    await ann.command("/start")
    assert (await ann.next("game_started"))["practice"] is False


@pytest.mark.parametrize(
    "message",
    [
        {"type": "option", "key": "clock", "value": 60},
        {"type": "option", "key": "seed", "value": 1},
        {"type": "add_bot", "strategy": "strong"},
        {"type": "remove_bot", "name": "random-bot1"},
    ],
)
async def test_spectators_change_nothing_in_a_room(server: Server, message: dict[str, object]) -> None:
    """A spectator may not set options or seat or remove bots: ``not_seated``, and nothing changes."""
    ann = await WsClient.connect(server.port, "ann")
    zoe = await WsClient.connect(server.port, "zoe")
    await ann.command("/join mine")
    await ann.command("/addbot random")
    await zoe.command("/room mine")
    await zoe.settle(0.1)
    before = zoe.view
    answer = await zoe.request(message)
    assert (answer["type"], answer["code"]) == ("error", "not_seated")
    await asyncio.sleep(0.05)
    await zoe.settle(0.1)
    assert zoe.view == before
