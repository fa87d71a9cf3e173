"""A tournament survives ``kill -9``: a server process killed before the start and again in the
middle of round 1 comes back with the tournament, its table and its game as they were, and the
tournament ends by the result of that game."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path
from typing import Any

from server.log.sqlite.store import Store
from tests.server.clients import TIMEOUT, WsClient, http_get
from tests.server.process import ServerProcess

PASSWORD = "correct horse battery"
ARGS = ("--resume-window", "30", "--bot-workers", "0", "--hash-memory", "1024")


async def _kill(server: ServerProcess) -> None:
    server.proc.send_signal(signal.SIGKILL)
    assert await asyncio.wait_for(server.proc.wait(), 10) == -signal.SIGKILL


async def _start_now(db: Path) -> None:
    """Move the tournament's start to a moment ago, in the file, with no server running."""
    store = Store(str(db))
    try:
        stored = await store.tournaments.tournament(1)
        assert stored is not None and stored.state["status"] == "upcoming"
        assert await store.tournaments.tournament_saved(
            stored.version, {**stored.state, "starts": time.time() - 1}
        )
    finally:
        store.close()


async def _tournament(port: int, until: str) -> dict[str, Any]:
    deadline = time.monotonic() + TIMEOUT
    while True:
        found: dict[str, Any] = (await http_get(port, "/api/tournaments/1")).json()
        tables = found["tables"]
        if until == "game" and tables and tables[0]["game"] is not None:
            return found
        if found["tournament"]["status"] == until:
            return found
        assert time.monotonic() < deadline, found
        await asyncio.sleep(0.05)


async def test_a_tournament_killed_before_its_start_and_mid_round_goes_on(tmp_path: Path) -> None:
    """SIGKILL before the start, then during round 1's game: each restart takes the tournament up
    from the log; the players come back with their tokens (to be seated, then to their seats),
    and when bob leaves the game ann wins it and the tournament (one round) ends with ann first."""
    db = tmp_path / "cafe.db"
    first = await ServerProcess.start(db, *ARGS)
    ann, bob = [await WsClient.connect(first.port, n) for n in ("ann", "bob")]
    for client in (ann, bob):
        welcome = await client.request({"type": "register", "password": PASSWORD})
        assert welcome["registered"] is True
        client.token = welcome["token"]  # (each comes back with its token)
    assert (await ann.command("/tournament new cup swiss 1 size 2 start +5m"))["type"] == "tournament"
    assert (await bob.command("/tournament join cup"))["type"] == "ack"
    await _kill(first)
    await _start_now(db)

    second = await ServerProcess.start(db, *ARGS)
    # (a Swiss round seats those connected at its start: both come back first)
    ann = await WsClient.connect(second.port, "ann", token=ann.token)
    bob = await WsClient.connect(second.port, "bob", token=bob.token)
    made = await _tournament(second.port, "game")
    (table,) = made["tables"]
    assert sorted(table["players"]) == ["ann", "bob"] and made["tournament"]["round"] == 1
    await ann.next(lambda x: x["type"] == "snapshot" and x["view"]["room"] == table["room"])
    await _kill(second)

    third = await ServerProcess.start(db, *ARGS)
    try:
        again = await _tournament(third.port, "running")
        assert again["tables"] == made["tables"]
        bob = await WsClient.connect(third.port, "bob", token=bob.token)
        snapshot = await bob.next(lambda x: x["type"] == "snapshot" and x["view"]["room"] == table["room"])
        assert snapshot["view"]["state"] == "playing"
        assert (await bob.request({"type": "leave_room"}))["type"] == "ack"  # he leaves the game
        final = await _tournament(third.port, "finished")
        assert [(s["name"], s["points"]) for s in final["standings"]] == [("ann", 1.0), ("bob", 0.0)]
        assert final["tables"][0]["places"] == {"ann": 1, "bob": 2}
    finally:
        third.proc.send_signal(signal.SIGTERM)
        await asyncio.wait_for(third.proc.wait(), 20)
