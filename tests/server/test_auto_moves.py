"""The game log keeps, per move, whether the server played it for its player: the turn clock ran
out (``clock``) or a bot kept the seat (``bot``). The record (``GET /games/ID``) and the replay
(``/api/games/ID/replay``) show it; a game logged before reads as before. Over real sockets."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from engine import GameRecord, Options
from server.app import Server
from server.log.sqlite import schema
from server.log.sqlite.store import Store
from tests.server.clients import WsClient, http_get
from tests.server.conftest import ServerFactory


async def _clock_then_drop(server: Server, room: str) -> str:
    """ann and bob play in ``room`` with a one-second clock and absent drop: the first mover lets
    the clock run out once, then the other plays a move and bob goes, which ends the game. The
    game's id."""
    ann, bob = await WsClient.connect(server.port, "ann"), await WsClient.connect(server.port, "bob")
    assert (await ann.command(f"/join {room}"))["type"] == "ack"
    for option in ("clock 1", "absent drop"):
        assert (await ann.command(f"/option {option}"))["type"] == "ack"
    assert (await bob.command(f"/join {room}"))["type"] == "ack"
    assert (await ann.command("/start"))["type"] == "ack"
    timed_out = await ann.next(lambda x: x["type"] == "played" and x["clock"], timeout=15)
    assert timed_out["auto"] is True
    await ann.barrier()
    assert ann.view is not None
    mover = ann if ann.view["game"]["to_move"] == "ann" else bob
    moves = await mover.request({"type": "legal_moves"})
    assert (await mover.request({"type": "move", "move": moves["moves"][0]}))["type"] == "ack"
    game_id = server.lobby.rooms[room].core.game.game_id  # type: ignore[union-attr]
    await bob.close()
    await ann.next("game_over", timeout=15)
    return str(game_id)


async def test_a_move_the_clock_played_is_marked_in_the_record_and_the_replay(
    make_server: ServerFactory,
) -> None:
    """The clock's move is ``"auto": {"1": "clock"}`` in the record, whose engine replay is
    untouched, and ``auto`` ``clock`` on its replay step; the player's own move and the drop
    carry none."""
    server: Server = await make_server(clock_min=1.0, resume_window=0.3)
    game_id = await _clock_then_drop(server, "clocked")
    record = (await http_get(server.port, f"/api/games/{game_id}")).json()
    assert record["auto"] == {"1": "clock"}
    assert len(record["moves"]) == 3 and record["moves"][2] == "leave bob"
    replay = (await http_get(server.port, f"/api/games/{game_id}/replay")).json()
    marks = [step["move"]["auto"] for step in replay["steps"][1:]]
    assert marks == ["clock", None, None]
    # the record kept in the file says the same after a restart
    await server.stop()
    again: Server = await make_server(clock_min=1.0)
    assert (await http_get(again.port, f"/games/{game_id}")).json()["auto"] == {"1": "clock"}


def _v8_log(path: Path) -> None:
    """A log of schema version 8 (before the marks) holding one finished game of one move."""
    record = GameRecord(("ann", "bob"), seed=3, options=Options())
    with sqlite3.connect(path) as db:
        schema.upgrade(db, schema.STEPS[: 8 - schema.BASE_VERSION])
        assert db.execute("PRAGMA user_version").fetchone() == (8,)
        db.execute(
            "INSERT INTO games (id, room, players, kinds, seed, options, board, start_player,"
            " started, finished, result, room_options, moves)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, NULL, 1.0, 2.0, ?, '{}', ?)",
            ("old1", "old", '["ann", "bob"]', '["person", "person"]', 3, '{"stammtisch": false}',
             record.board, '{"reason": "last_player"}', '["leave bob"]'),
        )  # fmt: skip


async def test_a_game_logged_before_the_marks_reads_as_before(
    tmp_path: Path, make_server: ServerFactory
) -> None:
    """A version-8 log upgrades in place: its finished game has no marks, and its record shows
    ``"auto": {}``."""
    path = tmp_path / "old.db"
    _v8_log(path)
    store = Store(str(path))
    old = await store.game("old1")
    store.close()
    assert old is not None and old.auto == {} and old.record.moves == ("leave bob",)
    server: Server = await make_server(data=str(path))
    record: dict[str, Any] = (await http_get(server.port, "/api/games/old1")).json()
    assert record["auto"] == {} and record["moves"] == ["leave bob"]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (schema.SCHEMA_VERSION,)
        assert db.execute("SELECT auto FROM games WHERE id = 'old1'").fetchone() == (None,)
