"""A graceful stop with a move in flight: the move is acknowledged and in the log, or neither;
never acknowledged and lost. The server finishes the moves it received before it stops (README,
"Running the server"), so the move held in its log write is both."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from server.app import Server
from server.log.sqlite.store import Store
from tests.server.clients import TIMEOUT, WsClient
from tests.server.conftest import ServerFactory
from tests.server.test_log_first import LogWrite, _game

HOLD = 0.2


async def _until_closed(client: WsClient) -> list[dict[str, Any]]:
    """Everything ``client`` received before its connection closed."""
    try:
        while True:
            await client.next(lambda _: False)
    except ConnectionClosed:
        return client.messages


async def test_a_stop_with_a_move_in_flight_acks_it_only_once_it_is_logged(
    make_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log write of a move is held 0.2 s and the server is stopped meanwhile: after the stop
    the mover has the ``ack`` exactly when the log, opened again, holds the move, and both are so."""
    server: Server = await make_server()
    clients, _zoe, mover_name, move = await _game(server)
    mover = clients[mover_name]
    store = server.lobby.store
    logged: LogWrite = store.move_played
    writing = asyncio.Event()

    async def held(game_id: str, number: int, text: str) -> None:
        writing.set()
        await asyncio.sleep(HOLD)
        await logged(game_id, number, text)

    monkeypatch.setattr(store, "move_played", held)
    await mover.send({"type": "move", "move": move, "id": "in-flight"})
    await asyncio.wait_for(writing.wait(), TIMEOUT)
    await server.stop()
    received = await _until_closed(mover)
    acked = any(m["type"] == "ack" and m.get("id") == "in-flight" for m in received)
    assert "bye" in [m["type"] for m in received]
    again = Store(server.config.data)
    try:
        (game,) = await again.unfinished_games()
    finally:
        again.close()
    in_the_log = game.record.moves == (move,)
    assert (acked, in_the_log) in ((True, True), (False, False)), (acked, game.record.moves)
    assert acked and in_the_log, "a move received before the stop is finished"


async def test_a_hello_that_comes_as_the_stop_begins_is_refused(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A connection opened just before the stop began says ``hello`` after it: ``shutting_down``,
    not a welcome (which would come after the ``bye`` every connection read)."""
    client = await WsClient.connect(server.port)
    monkeypatch.setattr(server.lobby, "accepting", False)
    answer = await client.request({"type": "hello", "name": "late"})
    assert (answer["type"], answer["code"]) == ("error", "shutting_down")
