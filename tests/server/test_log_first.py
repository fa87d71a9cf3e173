"""Every accepted move is in the game log before anyone hears of it: a move the log refuses, or has
not taken yet, is acknowledged to nobody and changes nothing. The failure is injected through the
public ``move_played`` of the store the server uses."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from engine import legal_move_texts, new_position, play
from server.app import Server
from server.log.contract import StoreUnavailable
from tests.server.clients import TIMEOUT, WsClient

SEED = 21
PLAYERS = ("ann", "bob")

LogWrite = Callable[[str, int, str], Awaitable[None]]


async def _game(server: Server) -> tuple[dict[str, WsClient], WsClient, str, str]:
    """ann and bob in a started seeded game, zoe watching; the mover's name and a legal move."""
    clients = {name: await WsClient.connect(server.port, name) for name in PLAYERS}
    ann, bob = clients["ann"], clients["bob"]
    assert (await ann.command("/join logged"))["type"] == "ack"
    assert (await ann.command(f"/option seed {SEED}"))["type"] == "ack"
    assert (await bob.command("/join logged"))["type"] == "ack"
    zoe = await WsClient.connect(server.port, "zoe")
    assert (await zoe.command("/room logged"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    for client in (ann, bob, zoe):
        await client.next("game_started")
    position = new_position(PLAYERS, SEED)
    move = play(position, legal_move_texts(position)[0]).move
    return clients, zoe, PLAYERS[position.to_move], move


def _everyone(clients: dict[str, WsClient], zoe: WsClient) -> list[WsClient]:
    return [*clients.values(), zoe]


def _played(client: WsClient) -> list[dict[str, Any]]:
    return [m for m in client.messages if m["type"] == "played"]


async def _move_number_after_resync(client: WsClient) -> int:
    client.take_all()  # the snapshot wanted is the one that answers this resync
    await client.send({"type": "resync"})
    snapshot = await client.next("snapshot")
    number: int = snapshot["view"]["game"]["move_number"]
    return number


async def test_a_move_the_log_refuses_is_acknowledged_to_nobody_and_changes_nothing(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the log write of an ordinary move fails, the mover alone gets ``unavailable``; no ack,
    no ``played`` and no patch reach anyone, the position stays, and once the log is back the
    same move is accepted."""
    clients, zoe, mover_name, move = await _game(server)
    mover = clients[mover_name]
    store = server.lobby.store
    logged: LogWrite = store.move_played
    refused: list[str] = []

    async def refuse_once(game_id: str, number: int, text: str) -> None:
        if not refused:
            refused.append(text)
            raise StoreUnavailable("the disk is away")
        await logged(game_id, number, text)

    monkeypatch.setattr(store, "move_played", refuse_once)
    hand = list(mover.view["game"]["hand"]) if mover.view else None
    answer = await mover.request({"type": "move", "move": move})
    assert (answer["type"], answer.get("code")) == ("error", "unavailable")
    assert refused == [move]
    for client in _everyone(clients, zoe):
        await client.barrier()
        assert _played(client) == []
        assert client.view is not None and client.view["game"]["move_number"] == 0
    assert [m["type"] for m in mover.messages if m.get("id") == answer["id"]] == ["error"]
    assert mover.view is not None and mover.view["game"]["hand"] == hand
    assert await _move_number_after_resync(zoe) == 0
    (stored,) = await store.unfinished_games()
    assert stored.record.moves == ()

    assert (await mover.request({"type": "move", "move": move}))["type"] == "ack"
    for client in _everyone(clients, zoe):
        played = await client.next("played")
        assert (played["player"], played["move"]) == (mover_name, move)
        assert client.view is not None and client.view["game"]["move_number"] == 1
    (stored,) = await store.unfinished_games()
    assert stored.record.moves == (move,)


async def test_a_move_the_log_has_not_taken_yet_is_acknowledged_only_once_it_has(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the log write of a move is held, nobody — the mover included — hears of the move;
    when the write completes the mover gets ``ack`` and everyone ``played``."""
    clients, zoe, mover_name, move = await _game(server)
    mover = clients[mover_name]
    store = server.lobby.store
    logged: LogWrite = store.move_played
    writing = asyncio.Event()
    release = asyncio.Event()

    async def held(game_id: str, number: int, text: str) -> None:
        writing.set()
        await release.wait()
        await logged(game_id, number, text)

    monkeypatch.setattr(store, "move_played", held)
    await mover.send({"type": "move", "move": move, "id": "held-move"})
    await asyncio.wait_for(writing.wait(), TIMEOUT)
    for client in _everyone(clients, zoe):
        await client.barrier()  # the lobby answers pings while the room waits for the log
        assert _played(client) == []
        assert not [m for m in client.messages if m.get("id") == "held-move"]
        assert client.view is not None and client.view["game"]["move_number"] == 0
    (stored,) = await store.unfinished_games()
    assert stored.record.moves == ()

    release.set()
    answer = await mover.next(lambda m: m.get("id") == "held-move")
    assert answer["type"] == "ack"
    (stored,) = await store.unfinished_games()
    assert stored.record.moves == (move,)
    for client in _everyone(clients, zoe):
        played = await client.next("played")
        assert (played["player"], played["move"]) == (mover_name, move)


async def test_games_started_at_once_are_logged_in_one_commit_before_anyone_hears_of_them(
    server: Server, tmp_path: Path
) -> None:
    """Rooms whose games start in the same turn of the event loop log them in one transaction, and
    no player hears ``game_started`` before the game is in the log file."""
    rooms = [f"together{i}" for i in range(4)]
    seated: dict[str, list[WsClient]] = {}
    for room in rooms:
        seated[room] = [await WsClient.connect(server.port, f"{room}p{s}") for s in range(2)]
        for client in seated[room]:
            assert (await client.command(f"/join {room}"))["type"] == "ack"
    store = server.lobby.store
    committed: list[str] = []
    store._db.set_trace_callback(  # type: ignore[attr-defined]
        lambda sql: committed.append(sql) if sql == "COMMIT" else None
    )
    await asyncio.gather(*(seated[room][0].send({"type": "start"}) for room in rooms))
    for room in rooms:
        for client in seated[room]:
            await client.next("game_started")
            with sqlite3.connect(tmp_path / "cafe.db") as db:
                assert db.execute("SELECT COUNT(*) FROM games WHERE room = ?", (room,)).fetchone() == (1,)
    assert 1 <= len(committed) < len(rooms)
