"""The line bot takes its seat again when its ``/join`` did not: in a cluster, a ``/join`` typed
while the room's node is away is answered ``unavailable`` (or, where the room could not be
reached at all, the server re-enters the client only to watch), and the room waits for that seat."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bots.client import BotSettings, LineBot
from protocol import messages as m
from protocol.errors import UNAVAILABLE, ProtocolError
from server import logs
from server.app import Server
from server.config import Config
from server.lobby.lobby import Lobby
from server.session import Session
from tests.server.clients import WsClient

T = TypeVar("T")
#: a bound on every wait, so that a bot that never sits down fails the test instead of hanging it
LIMIT = 30.0
#: the bots' message rate: whole games in a few seconds
FAST = 200.0


@pytest.fixture(autouse=True)
def _quiet_logs() -> None:
    logs.configure("warning", "console")


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    """A server whose rate limits let bots paced at ``FAST`` play at full speed."""
    s = Server(
        Config(port=0, line_port=0, data=str(tmp_path / "c.db"), log_level="warning", rate=1000.0, burst=1000)
    )
    await s.start()
    yield s
    await s.stop()


async def _within(awaitable: Awaitable[T]) -> T:
    return await asyncio.wait_for(awaitable, LIMIT)


async def _room_with_a_bot(server: Server, room: str) -> WsClient:
    """A host who opens ``room``, seats a server-side bot, lets any player start, then watches."""
    host = await WsClient.connect(server.port, "host")
    assert (await host.request({"type": "join", "room": room}))["type"] == "ack"
    assert (await host.request({"type": "option", "key": "seed", "value": 4}))["type"] == "ack"
    assert (await host.request({"type": "add_bot", "strategy": "random"}))["type"] == "ack"
    assert (await host.request({"type": "option", "key": "host", "value": False}))["type"] == "ack"
    assert (await host.request({"type": "leave_game"}))["type"] == "ack"
    return host


def _enter_only_once(server: Server, player: str, answer: str) -> list[str]:
    """The first ``/join ROOM`` of ``player`` enters the room without taking a seat, as a cluster node
    re-enters a client whose room moved; the client hears ``unavailable`` (``answer`` "error") or
    only a notice ("notice"). Returns the joins so intercepted."""
    lobby = server.lobby
    original = lobby.enter_room
    caught: list[str] = []

    async def enter_room(session: Session, name: str, *, join: bool, msg_id: m.ClientId) -> None:
        if session.name != player or not join or caught:
            await original(session, name, join=join, msg_id=msg_id)
            return
        caught.append(name)
        await original(session, name, join=False, msg_id=msg_id)
        if answer == "error":
            raise ProtocolError("unavailable", UNAVAILABLE, msg_id)
        session.send(m.Notice(text=UNAVAILABLE))

    lobby.enter_room = enter_room  # type: ignore[method-assign,assignment]
    return caught


@pytest.mark.parametrize("answer", ["error", "notice"])
async def test_line_bot_whose_join_did_not_seat_it_sits_down_and_plays(server: Server, answer: str) -> None:
    """A line bot whose ``/join ROOM`` entered the room but gave it no seat (answered
    ``unavailable``, or with a notice only) takes its seat and plays the game it starts."""
    assert isinstance(server.lobby, Lobby)
    host = await _room_with_a_bot(server, "again")
    caught = _enter_only_once(server, "lars", answer)
    bot = LineBot(
        BotSettings(
            name="lars",
            room="again",
            strategy="first",
            line=f"127.0.0.1:{server.line_port}",
            start=2,
            rate=FAST,
        )
    )

    async def game_over() -> dict[str, Any]:
        return await host.next("game_over", timeout=LIMIT)

    watching = asyncio.create_task(game_over())
    (result,) = await _within(bot.run())
    over = await _within(watching)
    assert caught == ["again"]
    assert "lars" in over["ranking"]
    assert list(result.ranking) == over["ranking"]
    await host.close()
