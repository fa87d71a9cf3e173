"""The room actor around its core: waiting until a room is idle, and what a stopped room left."""

from __future__ import annotations

import asyncio

import pytest

from protocol import messages as m
from tests.server.clients import TIMEOUT, WsClient
from tests.server.conftest import ServerFactory
from tests.server.test_log_first import _game


async def test_settled_waits_for_every_item_posted_before(make_server: ServerFactory) -> None:
    """``settled()`` returns once every item posted before it was handled, however many."""
    server = await make_server()
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/join r")
    room = server.lobby.rooms["r"]
    session = next(iter(room.members))
    for seed in range(1, 4):  # (few: the test client reads its frames only when asked)
        room.post(session, m.SetOption(key="seed", value=seed))
    await room.settled()
    assert room.options.seed == 3
    await room.settled()  # an idle room is settled at once


async def test_a_stopped_room_hands_over_what_it_did_not_handle(make_server: ServerFactory) -> None:
    """After ``abandon()``, items posted are not handled: ``unhandled()`` takes them, in order,
    once, and ``settled()`` does not wait for them."""
    server = await make_server()
    ann = await WsClient.connect(server.port, "ann")
    await ann.command("/join r")
    room = server.lobby.rooms["r"]
    session = next(iter(room.members))
    room.abandon()
    del server.directory.rooms["r"]  # as a cluster node forgets a room another node took
    room.post(session, m.SetOption(key="seed", value=5, id=1))
    room.post(session, m.Say(text="hi", id=2))
    await room.settled()
    assert [item.message.id for item in room.unhandled()] == [1, 2]
    assert room.unhandled() == [] and room.options.seed is None


async def test_a_room_abandoned_mid_move_hands_over_the_move_it_was_handling(
    make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another node takes the room while a move waits for its log write: the room is abandoned
    with that move neither taken nor answered, so ``unhandled()`` hands it over first (the node
    answers it ``unavailable`` and the client sends it again), then what waited behind it."""
    server = await make_server()
    clients, _, mover_name, move = await _game(server)
    mover = clients[mover_name]
    room = server.lobby.rooms["logged"]
    writing = asyncio.Event()

    async def held(game_id: str, number: int, text: str) -> None:
        writing.set()
        await asyncio.Event().wait()  # the log (Redis) is away

    monkeypatch.setattr(server.lobby.store, "move_played", held)
    await mover.send({"type": "move", "move": move, "id": "held"})
    await asyncio.wait_for(writing.wait(), TIMEOUT)
    session = next(s for s in room.members if s.name == mover_name)
    room.post(session, m.Say(text="hi", id="after"))
    room.abandon()
    del server.directory.rooms["logged"]  # as a cluster node forgets a room another node took
    assert [item.message.id for item in room.unhandled()] == ["held", "after"]
    assert room.unhandled() == []
